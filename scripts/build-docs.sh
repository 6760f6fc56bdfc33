#!/usr/bin/env bash
# Builds the DocC documentation of every public library module, with DocC's warnings as errors: an unresolved
# ``link``, an undocumented parameter or a broken article fails the build (exit status non-zero), as in CI.
# The archives land in .build/plugins/Swift-DocC/outputs/<Target>.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(
    HybridKit HybridKitGTK HybridKitWK HybridKitTesting
    HybridCookies HybridPackages HybridNetwork HybridUpdateServer
)
arguments=()
for target in "${targets[@]}"; do arguments+=(--target "$target"); done

# One run for all targets: the modules are compiled once. --disable-sandbox turns off SwiftPM's plugin sandbox
# (it exists on macOS only), so the same command runs on a Mac and on Linux.
swift package --disable-sandbox generate-documentation "${arguments[@]}" --warnings-as-errors
echo "Documentation built: .build/plugins/Swift-DocC/outputs/{$(IFS=,; echo "${targets[*]}")}.doccarchive"
