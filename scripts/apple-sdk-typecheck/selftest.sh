#!/usr/bin/env bash
# Proves typecheck.sh checks what it claims: plants known mistakes in a copy of the checked sources and requires
# typecheck.sh to fail with a diagnostic for each, at the planted file. A check that compiles nothing, skips
# function bodies, skips the SIL diagnostics, or leaves the Shop's SwiftUI view out cannot pass.
#
#   selftest.sh --sdk <dir> [--apinotes <dir>] [--src <dir>] [--checkouts <dir>] [--work <dir>]
#   (the same arguments and environment variables as typecheck.sh; the copy goes to <work>/selftest)
# Exit status: 0 every planted mistake reported, 1 one or more missed, 2 the check could not run.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
src="${HK_SRC:-$(cd "$here/../.." && pwd)}"
work="${HK_TYPECHECK_WORK:-${TMPDIR:-/tmp}/hybridkit-apple-typecheck}"
checkouts="${HK_CHECKOUTS:-}"
pass=()
while [ $# -gt 0 ]; do
    case "$1" in --sdk | --apinotes | --src | --checkouts | --work) [ $# -ge 2 ] || { echo "selftest: $1 needs a value" >&2; exit 2; } ;; esac
    case "$1" in
        --src) src="${2:-}"; shift 2 ;;
        --work) work="${2:-}"; shift 2 ;;
        --checkouts) checkouts="${2:-}"; shift 2 ;;
        --sdk | --apinotes) pass+=("$1" "${2:-}"); shift 2 ;;
        -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "selftest: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -d "$src/Sources/HybridKitWK" ] || { echo "selftest: '$src' is not a HybridKit checkout" >&2; exit 2; }
src="$(cd "$src" && pwd)"
# The copy has no .build: its dependencies come from the original checkout's.
[ -n "$checkouts" ] || checkouts="$src/.build/checkouts"

copy="$work/selftest/src"
rm -rf "$work/selftest"
mkdir -p "$copy/Sources" "$copy/Examples/Shop"
for m in HybridCookies HybridPackages HybridKit HybridKitWK HybridKitTesting; do cp -R "$src/Sources/$m" "$copy/Sources/"; done
cp -R "$src/Examples/Shop/Sources" "$copy/Examples/Shop/"

# Each planted file is new, so the plants do not depend on the current text of the real sources.
# HybridKitWK, type-checking against the SDK's WebKit: an API that does not exist, main-actor violations, a
# Sendable violation, a delegate method WebKit would not call. Swift treats isolation imported from Objective-C headers (WKWebView is a UIView, so on the
# main actor) as @preconcurrency: calling it off the main actor is a warning even in Swift 6 mode, so that plant
# expects a warning, and a main-actor type declared in Swift is what an error is expected for.
cat >"$copy/Sources/HybridKitWK/PlantedMistakes.swift" <<'SWIFT'
import Foundation
import WebKit

@MainActor func plantedMissingAPI(_ webView: WKWebView, _ request: URLRequest) {
    webView.loadPlantedMissing(request)
}

@MainActor final class PlantedMainActorState {
    var webView: WKWebView?
}

func plantedMainActorViolation(_ state: PlantedMainActorState) {
    _ = state.webView
}

func plantedWebKitMainActorViolation(_ webView: WKWebView) {
    webView.reload()
}

struct PlantedSendableViolation: Sendable {
    let text: NSMutableString
}

// An optional delegate method with a wrong handler type: WebKit would never call it (a warning, not an error).
@MainActor final class PlantedNavigationDelegate: NSObject, WKNavigationDelegate {
    func webView(
        _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
        decisionHandler: @escaping @MainActor @Sendable (Bool) -> Void
    ) {}
}
SWIFT
# HybridKit: a function body (the re-exported modules' bodies are checked, not only their interfaces).
cat >"$copy/Sources/HybridKit/PlantedMistake.swift" <<'SWIFT'
import Foundation

func plantedBodyMistake() -> Int {
    Data().plantedMissingCount
}
SWIFT
# HybridCookies: a data race only the SIL diagnostics see (region isolation): type-checking alone accepts it.
cat >"$copy/Sources/HybridCookies/PlantedRace.swift" <<'SWIFT'
import Foundation

func plantedRace() async {
    let text = NSMutableString()
    Task { @MainActor in text.append("a") }
    text.append("b")
}
SWIFT
# ShopiOS: a mistake that names ShopView, so it is reported only if ShopView.swift (SwiftUI + UIKit, empty on
# Linux) was compiled; without it the message would be "cannot find 'ShopView' in scope".
cat >"$copy/Examples/Shop/Sources/ShopiOS/PlantedMistake.swift" <<'SWIFT'
#if canImport(SwiftUI) && canImport(UIKit)
    import UIKit
    import HybridKitWK

    @MainActor func plantedShopMistake(_ container: HybridContainer) -> UIView {
        ShopView(container: container).plantedMissingView
    }
#endif
SWIFT

expected=(
    "Sources/HybridKitWK/PlantedMistakes.swift:.*error: .*has no member 'loadPlantedMissing'"
    "Sources/HybridKitWK/PlantedMistakes.swift:.*error: main actor-isolated property 'webView' can not be referenced from a nonisolated context"
    "Sources/HybridKitWK/PlantedMistakes.swift:.*warning: call to main actor-isolated instance method 'reload\(\)' in a synchronous nonisolated context"
    "Sources/HybridKitWK/PlantedMistakes.swift:.*error: stored property 'text' of 'Sendable'-conforming struct 'PlantedSendableViolation' has non-Sendable type 'NSMutableString'"
    "Sources/HybridKitWK/PlantedMistakes.swift:.*warning: instance method 'webView\(_:decidePolicyFor:decisionHandler:\)' nearly matches optional requirement"
    "Sources/HybridKit/PlantedMistake.swift:.*error: .*has no member 'plantedMissingCount'"
    "Sources/HybridCookies/PlantedRace.swift:.*error: sending 'text' risks causing data races"
    "Examples/Shop/Sources/ShopiOS/PlantedMistake.swift:.*error: value of type 'ShopView' has no member 'plantedMissingView'"
)

report="$work/selftest/typecheck.txt"
HK_MODULE_CACHE="$work/module-cache" HK_DEPS_CACHE="$work/dependencies" bash "$here/typecheck.sh" ${pass[@]+"${pass[@]}"} --src "$copy" \
    --checkouts "$checkouts" --work "$work/selftest/work" >"$report" 2>&1
status=$?
if [ "$status" -eq 2 ]; then
    cat "$report" >&2
    echo "selftest: typecheck.sh could not run (above)" >&2
    exit 2
fi
missed=0
for pattern in "${expected[@]}"; do
    if grep -qE "$pattern" "$report"; then
        echo "reported: $pattern"
    else
        echo "MISSED:   $pattern"
        missed=$((missed + 1))
    fi
done
if [ "$status" -ne 1 ]; then
    echo "MISSED:   typecheck.sh exit status 1 (errors found); it exited $status"
    missed=$((missed + 1))
fi
others=$(grep -E 'error: ' "$report" | grep -vc 'Planted')
echo "typecheck.sh on the planted copy: exit status $status; errors outside the planted files: $others"
echo "(full output: $report)"
if [ "$missed" -ne 0 ]; then
    echo "selftest FAILED: $missed of ${#expected[@]} planted mistakes not reported" >&2
    exit 1
fi
echo "selftest passed: all ${#expected[@]} planted mistakes reported"
