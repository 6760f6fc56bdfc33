#!/usr/bin/env bash
# Fetches the real release pairs `hybrid bench updates` measures: the built web front-ends that three Python
# packages ship in their wheels (content-hashed file names), two consecutive versions each. Data, never committed.
#
#   scripts/fetch-update-bench-data.sh [DIR]     default DIR: /tmp/hybrid-update-bench
#
# Writes DIR/<app>/<version>/ (the front-end folder of that wheel, nothing else); wheels are kept in DIR/wheels.
# Needs pip (PyPI) and unzip. Then: hybrid bench updates --data DIR
set -euo pipefail

dir="${1:-/tmp/hybrid-update-bench}"
# app  old  new  folder inside the wheel
pairs=(
    "streamlit 1.40.0 1.40.1 streamlit/static"
    "jupyterlab 4.2.4 4.2.5 jupyterlab/static"
    "gradio 5.5.0 5.6.0 gradio/templates/frontend"
)
command -v pip >/dev/null || { echo "fetch-update-bench-data: pip is needed (python3 -m ensurepip)" >&2; exit 69; }
command -v unzip >/dev/null || { echo "fetch-update-bench-data: unzip is needed (apt-get install unzip)" >&2; exit 69; }
mkdir -p "$dir/wheels"
for pair in "${pairs[@]}"; do
    read -r app old new folder <<<"$pair"
    for version in "$old" "$new"; do
        target="$dir/$app/$version"
        [[ -d "$target" ]] && continue
        wheel="$(ls "$dir/wheels/$app-$version-"*.whl 2>/dev/null | head -1 || true)"
        if [[ -z "$wheel" ]]; then
            pip download --quiet --no-deps "$app==$version" -d "$dir/wheels"
            wheel="$(ls "$dir/wheels/$app-$version-"*.whl | head -1)"
        fi
        scratch="$(mktemp -d)"
        unzip -q "$wheel" "$folder/*" -d "$scratch"
        mkdir -p "$dir/$app"
        mv "$scratch/$folder" "$target"
        rm -rf "$scratch"
        echo "$app $version: $(find "$target" -type f | wc -l) files, $(du -sh "$target" | cut -f1) in $target"
    done
done
