#!/usr/bin/env bash
# Builds the examples and runs the shop app headless: it must pass its own checks, and exit 0 with its output
# intact run after run (RUNS times, 100 by default) with standard output redirected to a file. ShopiOS (the
# iOS host) is compiled too: on Linux, ShopHost against the WebKit stand-in; ShopView (SwiftUI) is empty there and
# only scripts/apple-sdk-typecheck/ compiles it.
set -euo pipefail
cd "$(dirname "$0")/../Examples/Shop"
runs="${RUNS:-100}"

swift build
shop="$(swift build --show-bin-path)/Shop"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# A display of the machine's own would be used; the checks must hold headless, so run without one.
unset DISPLAY
failed=0
for run in $(seq 1 "$runs"); do
  status=0
  "$shop" >"$out/stdout" 2>"$out/stderr" || status=$?
  passes=$(grep -c '^PASS ' "$out/stdout" || true)
  if [ "$status" -ne 0 ] || [ "$passes" -ne 6 ] || grep -q '^FAIL ' "$out/stdout"; then
    echo "run $run: exit status $status, $passes of 6 checks passed" >&2
    sed 's/^/  stdout: /' "$out/stdout" >&2
    tail -n 20 "$out/stderr" | sed 's/^/  stderr: /' >&2
    failed=$((failed + 1))
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "Examples/Shop: $failed of $runs runs failed" >&2
  exit 1
fi
echo "Examples/Shop: $runs of $runs runs exited 0 with all 6 checks passed (stdout redirected to a file)"
