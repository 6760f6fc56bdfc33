#!/usr/bin/env bash
# Type-checks HybridKitWK, the modules it re-exports (HybridKit, HybridCookies, HybridPackages) and the Shop
# example's Apple host (ShopCart + ShopiOS, its SwiftUI view included) against an Apple iOS SDK, for
# arm64-apple-ios18.0 (the package's iOS floor), in Swift 6 mode with function bodies and SIL diagnostics
# (region isolation / `sending`, definite initialisation, exclusivity: checks that run after type-checking).
# It links nothing and runs nothing. Works on Linux (with an SDK prepared by prepare-linux-sdk.sh) and on a Mac.
# Not run by CI: CI has no SDK. See README.md in this folder.
#
#   typecheck.sh --sdk <dir> [--apinotes <dir>] [--src <dir>] [--checkouts <dir>] [--work <dir>]
#
#   --sdk        an iPhoneOS SDK directory                                   (or APPLE_SDK)
#                  on a Mac: "$(xcrun --sdk iphoneos --show-sdk-path)"
#   --apinotes   Linux only: a directory with Dispatch.apinotes and os.apinotes from swiftlang/swift's apinotes/
#                folder (a Linux toolchain lacks the Darwin ones)          (or APPLE_APINOTES)
#   --src        the HybridKit checkout to check (default: this script's) (or HK_SRC)
#   --checkouts  the resolved dependencies, SwiftPM's checkouts folder (default: <src>/.build/checkouts, then
#                this checkout's)                                          (or HK_CHECKOUTS)
#   --work       scratch folder for modules, module cache and logs (default: ${TMPDIR:-/tmp}/hybridkit-apple-typecheck)
#                                                                          (or HK_TYPECHECK_WORK)
#   HK_MODULE_CACHE  the module cache folder (default: <work>/module-cache)
#   HK_DEPS_CACHE    where compiled dependencies are kept between runs (default: <work>/dependencies)
# Exit status: 0 no error, 1 errors found (listed), 2 the check could not run (what is missing is printed).
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
sdk="${APPLE_SDK:-}"
apinotes="${APPLE_APINOTES:-}"
src="${HK_SRC:-$repo}"
checkouts="${HK_CHECKOUTS:-}"
work="${HK_TYPECHECK_WORK:-${TMPDIR:-/tmp}/hybridkit-apple-typecheck}"

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
missing() { echo "apple-sdk-typecheck: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in --sdk | --apinotes | --src | --checkouts | --work) [ $# -ge 2 ] || missing "$1 needs a value" ;; esac
    case "$1" in
        --sdk) sdk="${2:-}"; shift 2 ;;
        --apinotes) apinotes="${2:-}"; shift 2 ;;
        --src) src="${2:-}"; shift 2 ;;
        --checkouts) checkouts="${2:-}"; shift 2 ;;
        --work) work="${2:-}"; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; missing "unknown argument '$1'" ;;
    esac
done

# --- What the check needs, each refusal saying what to supply. ---
command -v swiftc >/dev/null || missing "no swiftc on PATH: install Swift 6.2 or newer (or Xcode 26 on a Mac)"
[ -n "$sdk" ] || missing "no SDK given: pass --sdk <iPhoneOS SDK dir> (on a Mac: \$(xcrun --sdk iphoneos --show-sdk-path);
  on Linux: prepare one with $here/prepare-linux-sdk.sh, see $here/README.md)"
[ -d "$sdk" ] || missing "SDK '$sdk' is not a directory"
sdk="$(cd "$sdk" && pwd)"
for need in usr/lib/swift/Swift.swiftmodule System/Library/Frameworks/Foundation.framework \
    System/Library/Frameworks/WebKit.framework/Headers/WKWebView.h \
    System/Library/Frameworks/SwiftUI.framework System/Library/Frameworks/UIKit.framework; do
    [ -e "$sdk/$need" ] || missing "SDK '$sdk' has no $need: give an iPhoneOS SDK (not a simulator or macOS one)"
done
for module in HybridCookies HybridPackages HybridKit HybridKitWK HybridKitTesting; do
    [ -d "$src/Sources/$module" ] || missing "--src '$src' is not a HybridKit checkout (no Sources/$module)"
done
[ -d "$src/Examples/Shop/Sources/ShopiOS" ] || missing "--src '$src' has no Examples/Shop/Sources/ShopiOS"
src="$(cd "$src" && pwd)"
if [ -z "$checkouts" ]; then
    checkouts="$src/.build/checkouts"
    [ -d "$checkouts" ] || checkouts="$repo/.build/checkouts"
fi
for dep in swift-log swift-metrics swift-crypto ZIPFoundation; do
    [ -d "$checkouts/$dep/Sources" ] || missing "no $dep in '$checkouts': run 'swift package resolve' in the checkout
  (the dependencies are compiled from SwiftPM's checkouts) or pass --checkouts <dir>"
done
checkouts="$(cd "$checkouts" && pwd)"

mkdir -p "$work" || missing "cannot create work folder '$work'"
work="$(cd "$work" && pwd)"
out="$work/modules"
# The clang and Swift module cache (SDK modules, keyed by their inputs) outlives a run: the self-test shares it.
cache="${HK_MODULE_CACHE:-$work/module-cache}"
logs="$work/logs"
rm -rf "$out" "$logs"
mkdir -p "$out" "$cache" "$logs"

target=(-target arm64-apple-ios18.0)
resource=()
if [ "$(uname -s)" != Darwin ]; then
    # A Linux toolchain's own resource folder carries the Linux corelibs' module maps (dispatch, CoreFoundation),
    # which clash with the SDK's: give swiftc one with only what an Apple target needs from the toolchain (the
    # runtime shims, clang's headers) plus the Darwin toolchain's API notes for Dispatch and os.
    [ -n "$apinotes" ] || missing "on Linux, pass --apinotes <dir> holding Dispatch.apinotes and os.apinotes from
  swiftlang/swift's apinotes/ folder (https://raw.githubusercontent.com/swiftlang/swift/main/apinotes/<name>):
  the Linux toolchain has no Darwin API notes"
    for f in Dispatch.apinotes os.apinotes; do
        [ -f "$apinotes/$f" ] || missing "'$apinotes' has no $f (from swiftlang/swift's apinotes/ folder)"
    done
    toolchain="$(dirname "$(dirname "$(command -v swiftc)")")"
    clang_dir="$(ls -d "$toolchain"/lib/clang/* 2>/dev/null | head -n 1)"
    [ -d "$toolchain/lib/swift/shims" ] && [ -n "$clang_dir" ] ||
        missing "cannot find the toolchain's lib/swift/shims and lib/clang/<version> under '$toolchain'"
    res="$work/resource"
    rm -rf "$res"
    mkdir -p "$res/apinotes"
    ln -s "$toolchain/lib/swift/shims" "$res/shims"
    ln -s "$clang_dir" "$res/clang"
    cp "$apinotes/Dispatch.apinotes" "$res/apinotes/"
    # Today's notes hide _os_log_impl and _os_signpost_emit_with_name_impl ("Availability: nonswift"); SDKs whose
    # os overlay was built by an older compiler still call them (as ___os_log_impl), so keep them callable and
    # only private, as the older notes did. Harmless for newer SDKs: the names stay out of user code either way.
    python3 - "$apinotes/os.apinotes" "$res/apinotes/os.apinotes" <<'PY' || missing "could not adapt os.apinotes"
import re, sys
text = open(sys.argv[1]).read()
for name in ("_os_log_impl", "_os_signpost_emit_with_name_impl"):
    text = re.sub(r"(- Name: %s\n)  Availability: nonswift\n(  AvailabilityMsg: [^\n]*\n)?" % re.escape(name),
                  r"\1  SwiftPrivate: true\n", text)
open(sys.argv[2], "w").write(text)
PY
    resource=(-resource-dir "$res")
fi

# Dependencies are compiled once and reused while nothing they are built from changes: the key covers the SDK,
# the compiler, this script, the Synchronization stand-in and every dependency source file (path, size, time).
deps_key="$(python3 - "$sdk" "$0" "$here/stubs/Synchronization.swift" "$checkouts" <<'PY'
import hashlib, os, subprocess, sys
sdk, script, stub, checkouts = sys.argv[1:5]
key = hashlib.sha256()
key.update(sdk.encode())
for path in (os.path.join(sdk, "SDKSettings.json"), os.path.join(sdk, "usr/lib/swift/Swift.swiftmodule")):
    if os.path.exists(path):
        key.update(f"{path}:{os.stat(path).st_mtime_ns}".encode())
key.update(subprocess.run(["swiftc", "--version"], capture_output=True).stdout)
for path in (script, stub):
    key.update(open(path, "rb").read())
for dep in ("swift-log", "swift-metrics", "swift-crypto", "ZIPFoundation"):
    for root, dirs, names in sorted(os.walk(os.path.join(checkouts, dep, "Sources"))):
        for name in sorted(names):
            st = os.stat(os.path.join(root, name))
            key.update(f"{root}/{name}:{st.st_size}:{st.st_mtime_ns}".encode())
print(key.hexdigest()[:16])
PY
)" || missing "could not compute the dependencies' cache key (python3?)"
deps_root="${HK_DEPS_CACHE:-$work/dependencies}"
deps="$deps_root/$deps_key"
deps_reused=false
[ -f "$deps/complete" ] && deps_reused=true
common=("${target[@]}" -sdk "$sdk" ${resource[@]+"${resource[@]}"} -module-cache-path "$cache" -I "$deps" -I "$out")
common+=(-parse-as-library)
# Dependencies are compiled for their interface only: their bodies are not what is checked here.
interface_only=("${common[@]}" -Xfrontend -experimental-skip-all-function-bodies)
swiftc=(nice -n 10 swiftc)

sources() { find "$@" -name '*.swift' -type f 2>/dev/null | LC_ALL=C sort; }
# Sets `files` to the Swift files under the given folders (a loop, not mapfile: macOS ships bash 3.2).
collect() {
    files=()
    local f
    while IFS= read -r f; do files+=("$f"); done < <(sources "$@")
}

# Stand-ins for what SwiftPM generates or what an older SDK lacks, compiled with the modules that need them.
gen="$work/generated"
rm -rf "$gen"
mkdir -p "$gen"
cat >"$gen/resource_bundle_accessor.swift" <<'SWIFT'
// What SwiftPM generates for a target with resources (type-checking only: no bundle exists here).
import Foundation
extension Foundation.Bundle {
    static let module: Bundle = .main
}
SWIFT
notes=()
needs_sync_stub=false
if [ ! -e "$sdk/usr/lib/swift/Synchronization.swiftmodule" ]; then
    needs_sync_stub=true
    notes+=("the SDK has no Synchronization module (it predates iOS 18): Mutex and Atomic are checked against
  $here/stubs/Synchronization.swift, which has the iOS 18 signatures HybridKit uses")
fi

started=$(date +%s)
declare -a summary=() steps=()
total_errors=0
total_warnings=0

# Runs one swiftc invocation, keeps its output in $logs/<name>.log and counts its diagnostics.
# Usage: step <name> <what> swiftc-arguments...
step() {
    local name="$1" what="$2"
    shift 2
    local t0 status errors warnings
    t0=$(date +%s)
    steps+=("$name")
    "${swiftc[@]}" "$@" >"$logs/$name.log" 2>&1
    status=$?
    errors=$(grep -cE '(^|: )error: ' "$logs/$name.log")
    warnings=$(grep -cE '(^|: )warning: ' "$logs/$name.log")
    # A failing compiler without a diagnostic (a crash, a missing module) is an error too.
    if [ "$status" -ne 0 ] && [ "$errors" -eq 0 ]; then
        errors=1
        echo "error: swiftc exited with status $status without a diagnostic (see the log)" >>"$logs/$name.log"
    fi
    total_errors=$((total_errors + errors))
    total_warnings=$((total_warnings + warnings))
    summary+=("$(printf '%-16s %-52s %3d errors %3d warnings %4ds' "$name" "$what" "$errors" "$warnings" \
        "$(($(date +%s) - t0))")")
    return "$status"
}

# Interface-only dependency; a failure here means the SDK or the checkouts are not what this script expects.
dependency() {
    local name="$1"
    shift
    if ! "${swiftc[@]}" -emit-module -module-name "$name" -emit-module-path "$deps_build/$name.swiftmodule" \
        "${interface_only[@]}" "$@" >"$logs/dep-$name.log" 2>&1; then
        echo "apple-sdk-typecheck: dependency $name did not compile for iOS against '$sdk':" >&2
        grep -E 'error: ' "$logs/dep-$name.log" | head -n 5 >&2
        missing "see $logs/dep-$name.log (an SDK older than iOS 17.4 or unprepared, or unexpected checkouts?)"
    fi
}

# As Package.swift sets for every target: sending a non-Sendable value across isolation is an error even where
# Swift 6.3 only warns (a value with an isolated conformance).
own_checks=(-Werror SendingRisksDataRace)

# A module of this repository: bodies type-checked and SIL diagnostics run (-emit-sil, whole module, into a file
# of the work folder: never `-o /dev/null`, since the compiler writes outputs by renaming a temporary file over
# the path, which as root replaces the device with a regular file) in Swift 6 mode, emitting the module its dependents import. If it has errors, its interface is
# emitted on its own (Swift 5 mode, bodies skipped) so that its dependents are still checked.
own() {
    local name="$1" what="$2" package="$3"
    shift 3
    if ! step "$name" "$what" -emit-sil -wmo -o "$out/$name.sil" -emit-module -emit-module-path "$out/$name.swiftmodule" \
        -module-name "$name" -package-name "$package" -swift-version 6 "${own_checks[@]}" "${common[@]}" "$@"; then
        "${swiftc[@]}" -emit-module -module-name "$name" -package-name "$package" \
            -emit-module-path "$out/$name.swiftmodule" "${interface_only[@]}" -swift-version 5 "$@" \
            >"$logs/$name-interface.log" 2>&1 ||
            echo "note: $name's interface did not compile either; modules importing it are not checked" \
                >>"$logs/$name.log"
    fi
}

# --- Dependencies, each with its own package's settings as SwiftPM applies them when building for iOS. ---
# Built in a private folder, then moved into place whole, so a concurrent or interrupted run never reuses a
# partial set.
if ! $deps_reused; then
mkdir -p "$deps_root"
deps_build="$(mktemp -d "$deps_root/building.XXXXXX")"
deps_started=$(date +%s)
interface_only_checks=("${interface_only[@]}")
interface_only+=(-I "$deps_build")
if $needs_sync_stub; then
    dependency Synchronization -swift-version 6 "$here/stubs/Synchronization.swift"
fi
collect "$checkouts/swift-log/Sources/Logging"
dependency Logging -swift-version 6 -package-name swift_log -enable-upcoming-feature ExistentialAny \
    -enable-upcoming-feature MemberImportVisibility -enable-upcoming-feature InternalImportsByDefault \
    -enable-upcoming-feature NonisolatedNonsendingByDefault -Xfrontend -require-explicit-sendable "${files[@]}"
# swift-metrics is a Swift 6 package, but with an SDK older than iOS 18 its `@TaskLocal static var` meets the
# pre-6.0 property-wrapper form, a mutable static Swift 6 refuses; Swift 5 mode with complete strict concurrency
# gives the same interface.
metrics_mode=(-swift-version 6)
$needs_sync_stub && metrics_mode=(-swift-version 5 -strict-concurrency=complete)
collect "$checkouts/swift-metrics/Sources/CoreMetrics"
dependency CoreMetrics "${metrics_mode[@]}" -package-name swift_metrics \
    -enable-upcoming-feature MemberImportVisibility "${files[@]}"
collect "$checkouts/swift-metrics/Sources/Metrics"
dependency Metrics "${metrics_mode[@]}" -package-name swift_metrics \
    -enable-upcoming-feature MemberImportVisibility "${files[@]}"
# swift-crypto on Apple platforms: CRYPTO_IN_SWIFTPM without CRYPTO_IN_SWIFTPM_FORCE_BUILD_API (its manifest sets
# that one only for Linux, Android, Windows and WASI), so Crypto re-exports the SDK's CryptoKit.
collect "$checkouts/swift-crypto/Sources/Crypto"
dependency Crypto -swift-version 5 -package-name swift_crypto -D CRYPTO_IN_SWIFTPM "${files[@]}"
# ZIPFoundation uses the SDK's Compression framework on Apple platforms (no zlib module).
collect "$checkouts/ZIPFoundation/Sources/ZIPFoundation"
dependency ZIPFoundation -swift-version 5 -package-name zipfoundation "${files[@]}"
touch "$deps_build/complete"
rm -rf "$deps"
mv "$deps_build" "$deps" 2>/dev/null || rm -rf "$deps_build"  # another run finished first: use its set
interface_only=("${interface_only_checks[@]}")
notes+=("dependencies compiled for iOS in $(($(date +%s) - deps_started)) s, kept in $deps")
else
notes+=("dependencies reused from $deps")
fi

# --- This repository's modules (swiftLanguageModes [.v6]), in dependency order. ---
collect "$src/Sources/HybridCookies"
own HybridCookies "HybridCookies: bodies + SIL, Swift 6" hybridkit "${files[@]}" "$gen/resource_bundle_accessor.swift"
collect "$src/Sources/HybridPackages"
own HybridPackages "HybridPackages: bodies + SIL, Swift 6" hybridkit "${files[@]}"
collect "$src/Sources/HybridKit"
own HybridKit "HybridKit: bodies + SIL, Swift 6" hybridkit "${files[@]}" "$gen/resource_bundle_accessor.swift"
collect "$src/Sources/HybridKitWK"
own HybridKitWK "HybridKitWK: bodies + SIL, Swift 6 (Apple's WebKit)" hybridkit "${files[@]}"
# Not re-exported, but a product an iOS app's tests link: the fakes and the conformance suite.
collect "$src/Sources/HybridKitTesting"
own HybridKitTesting "HybridKitTesting: bodies + SIL, Swift 6" hybridkit "${files[@]}"
# The Shop example's Apple host: its own package (swiftLanguageModes [.v6]); ShopView.swift (SwiftUI + UIKit)
# is compiled here, not on Linux, where canImport(UIKit) is false.
shop="$src/Examples/Shop/Sources"
collect "$shop/ShopCart"
own ShopCart "Examples/Shop ShopCart: bodies + SIL, Swift 6" shop "${files[@]}"
collect "$shop/ShopiOS"
own ShopiOS "Examples/Shop ShopiOS (SwiftUI host): bodies + SIL" shop "${files[@]}"

# --- Report. ---
echo "Apple SDK type-check of $src"
sdk_name="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["DisplayName"])' \
    "$sdk/SDKSettings.json" 2>/dev/null || echo "no SDKSettings.json")"
echo "  SDK: $sdk ($sdk_name)"
compiler="$(swiftc --version 2>/dev/null | sed -nE 's/.*Swift version ([^ ]+).*/\1/p' | head -n 1)"
echo "  target: arm64-apple-ios18.0, Swift 6 mode, swiftc $compiler"
for n in ${notes[@]+"${notes[@]}"}; do echo "  note: $n"; done
printf '  %s\n' "${summary[@]}"
# Every diagnostic, once, with paths relative to the checked tree.
for name in "${steps[@]}"; do cat "$logs/$name.log"; done | grep -E '(^|: )(error|warning): ' |
    sed "s|$src/||" | LC_ALL=C sort -u | sed 's/^/  /'
echo "total: $total_errors errors, $total_warnings warnings in $(($(date +%s) - started)) s (logs: $logs)"
[ "$total_errors" -eq 0 ]
