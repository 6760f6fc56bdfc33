#!/usr/bin/env bash
# Builds and runs HybridKit's libFuzzer targets (Fuzz/, a package of its own; see Fuzz/README.md).
#
#   scripts/fuzz.sh [target|all] [seconds]     run each target for `seconds` (default: all, 60 s each)
#   FUZZ_MERGE=1 scripts/fuzz.sh target 600    afterwards, merge what the run found into Fuzz/Corpus/<target>
#   scripts/fuzz.sh --list                     the targets
#
# Builds in .build-fuzz (never the shared .build), with -sanitize=fuzzer,address. Runs one target at a time.
# New inputs go to .build-fuzz/corpus/<target>; crashes to .build-fuzz/artifacts/<target>/; logs to
# .build-fuzz/logs/<target>.log. Exits non-zero if any target found a crash.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$root/.build-fuzz"
targets=(fuzz-range fuzz-zip fuzz-signed-documents fuzz-set-cookie fuzz-inbound-message fuzz-body-channel fuzz-binary-call fuzz-delta fuzz-http-cache fuzz-prefetch fuzz-prefetch-message fuzz-json-string)

if [[ "${1:-}" == "--list" ]]; then
    printf '%s\n' "${targets[@]}"
    exit 0
fi
which="${1:-all}"
seconds="${2:-60}"
if [[ "$which" != "all" ]]; then
    known=0
    for t in "${targets[@]}"; do [[ "$t" == "$which" || "fuzz-$which" == "$t" ]] && { which="$t"; known=1; }; done
    if [[ $known == 0 ]]; then
        echo "fuzz.sh: unknown target '$which'; one of: ${targets[*]} (or all)" >&2
        exit 64
    fi
    targets=("$which")
fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [[ "$seconds" == 0 ]]; then
    echo "fuzz.sh: seconds must be a positive whole number, not '$seconds'" >&2
    exit 64
fi

# `--sanitize fuzzer` makes SwiftPM link libFuzzer's main. Not `--sanitize fuzzer --sanitize address`: that hands
# swiftc two -sanitize= flags and Swift 6.3's frontend instruments for the last one only, so the fuzzers ran blind
# (no coverage: "corp: 1/1b"). The one comma-separated flag after it gives both.
build=(swift build --package-path "$root/Fuzz" --scratch-path "$scratch" --sanitize fuzzer
    -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address)
# One product at a time: a build of everything also links the main package's executables with the sanitizers,
# which gold fails on (an internal error in its DWARF reader) and which no fuzzer needs.
for target in "${targets[@]}"; do
    echo "== building $target"
    "${build[@]}" --product "$target" 2>&1 | grep -v "prohibited flag" | tail -20
done
bin="$("${build[@]}" --show-bin-path)"

# Zips need room for a few entries; every other input is a header or a small document.
max_len() { [[ "$1" == fuzz-zip ]] && echo 65536 || echo 8192; }

# Swift's runtime and Foundation keep caches alive until exit, which LeakSanitizer would report after every run.
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
status=0
for target in "${targets[@]}"; do
    corpus="$scratch/corpus/$target"
    seeds="$root/Fuzz/Corpus/$target"
    artifacts="$scratch/artifacts/$target/"
    log="$scratch/logs/$target.log"
    mkdir -p "$corpus" "$seeds" "$artifacts" "$(dirname "$log")"
    echo "== $target for ${seconds}s (log: $log)"
    # -timeout: one input taking 10 s is a hang; timeout(1) is the backstop if libFuzzer itself wedges.
    set +e
    timeout --signal=INT --kill-after=30 "$((seconds + 120))" \
        "$bin/$target" "$corpus" "$seeds" -max_total_time="$seconds" -max_len="$(max_len "$target")" \
        -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts" -print_final_stats=1 >"$log" 2>&1
    code=$?
    set -e
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)" "$log" || true
    if [[ $code != 0 ]]; then
        status=1
        echo "!! $target stopped with status $code; crash inputs in $artifacts:" >&2
        ls "$artifacts" >&2 || true
        grep -m5 -E "invariant broken|ERROR: |Fatal error|SUMMARY" "$log" >&2 || true
    fi
    if [[ "${FUZZ_MERGE:-0}" == 1 ]]; then
        # Keeps only inputs that add coverage to the committed seeds.
        "$bin/$target" -merge=1 -max_len="$(max_len "$target")" "$seeds" "$corpus" >>"$log" 2>&1
        echo "   merged: $(ls "$seeds" | wc -l) files, $(du -sh "$seeds" | cut -f1) in Fuzz/Corpus/$target"
    fi
done
exit $status
