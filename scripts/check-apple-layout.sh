#!/usr/bin/env bash
# Checks, on Linux, that the package still builds where there is no WebKitGTK (a Mac, an iOS app): everything bound to
# WebKitGTK must be reached only through Linux-conditioned dependencies and compiled only under a Linux condition.
# We cannot run a Mac here, so this lays the package out as a Mac sees it (HYBRIDKIT_APPLE_LAYOUT=1: Package.swift
# drops the `.when(platforms: [.linux])` dependencies and names no pkg-config package) and checks four things:
#
#   1. sources: every import of CWebKitGTK, HybridKitGTK, HybridDemo, HybridBench, HybridTestServers or WebKitStandIn
#      in Sources/, Tests/ and Plugins/ sits inside `#if os(Linux)` or `#if canImport(CWebKitGTK)` (not in an `||`,
#      not in an `#else`); this covers HybridKitWK and its tests, which need Apple's WebKit and so cannot be built here;
#   2. manifest: in that layout no target depends on a WebKitGTK-bound target and no pkg-config name is left;
#   3. build: `hybrid`, the GTK adapter (with its extension plugin), the demo, the benchmarks, the test servers,
#      gtk-exit-child and the WebKitGTK tests build in that layout, in their own scratch path (.build-apple), with a
#      pkg-config that records its calls; none may be about WebKitGTK;
#   4. behaviour: that `hybrid` keeps the package commands and refuses demo, bench and run with a message naming
#      Linux.
#
# Usage: scripts/check-apple-layout.sh [--scan-only]
#   --scan-only   only step 1 (a few seconds; no build).
# Step 1 first checks itself on planted files (a scan that finds nothing must not pass). Exits non-zero with one line
# per problem saying what to change.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-apple
bound='CWebKitGTK|HybridKitGTK|HybridDemo|HybridBench|HybridTestServers|WebKitStandIn'

# Prints `file:line: import M` for each import of a WebKitGTK-bound module outside a Linux-only condition.
# A branch counts as Linux-only when its condition is `os(Linux)` or `canImport(CWebKitGTK)`, alone or joined
# with `&&`; `||` and `#else` branches do not count (on a Mac they can be the branch compiled).
unguarded_imports() {
    awk -v bound="$bound" '
        function linux_only(condition,    parts, count, i) {
            sub(/\/\/.*$/, "", condition)
            gsub(/[ \t]/, "", condition)
            if (condition ~ /\|\|/) return 0
            count = split(condition, parts, "&&")
            for (i = 1; i <= count; i++)
                if (parts[i] == "os(Linux)" || parts[i] == "canImport(CWebKitGTK)") return 1
            return 0
        }
        FNR == 1 { depth = 0 }
        /^[ \t]*#if[ \t(]/ { depth++; guarded[depth] = linux_only(substr($0, index($0, "#if") + 3)); next }
        /^[ \t]*#elseif[ \t(]/ { guarded[depth] = linux_only(substr($0, index($0, "#elseif") + 7)); next }
        /^[ \t]*#else([ \t]|$)/ { guarded[depth] = 0; next }
        /^[ \t]*#endif/ { depth--; next }
        {
            line = $0
            if (line !~ /^[ \t]*(@[A-Za-z_]+[ \t]+)*import[ \t]/) next
            sub(/^[ \t]*(@[A-Za-z_]+[ \t]+)*import[ \t]+((typealias|struct|class|enum|protocol|let|var|func)[ \t]+)?/, "", line)
            module = line
            sub(/[ \t.;\/].*$/, "", module)
            if (module !~ ("^(" bound ")$")) next
            for (i = 1; i <= depth; i++) if (guarded[i]) next
            printf "%s:%d: import %s\n", FILENAME, FNR, module
        }
    ' "$@"
}

# Planted files: the scan must flag exactly the ones named bad-*.
scan_self_test() {
    local dir
    dir=$(mktemp -d)
    printf 'import Foundation\nimport HybridKitGTK\n' > "$dir/bad-top-level.swift"
    printf '#if canImport(WebKit) || os(Linux)\n    import WebKitStandIn\n#endif\n' > "$dir/bad-or.swift"
    printf '#if os(Linux)\n    import Foundation\n#else\n    @testable import CWebKitGTK\n#endif\n' > "$dir/bad-else.swift"
    printf '#if !os(Linux)\nimport struct HybridDemo.BridgeTour\n#endif\n' > "$dir/bad-negated.swift"
    printf '#if os(Linux)\n#endif\n@preconcurrency import HybridKitGTK\n' > "$dir/bad-after-endif.swift"
    printf '#if os(Linux)\n    import WebKitStandIn\n#else\n    import WebKit\n#endif\n' > "$dir/good-stand-in.swift"
    printf '#if canImport(CWebKitGTK)  // why\nimport HybridKitGTK\n@testable import HybridDemo\n%s\n#endif\n' \
        'import HybridTestServers' > "$dir/good-gtk.swift"
    printf '#if canImport(WebKit) || os(Linux)\n    #if os(Linux)\n        import WebKitStandIn\n    #endif\n#endif\n' \
        > "$dir/good-nested.swift"
    printf '#if os(Linux) && !HYBRIDKIT_APPLE_LAYOUT\nimport CWebKitGTK\n#endif\nimport HybridKitGTKExtras\n' \
        > "$dir/good-and.swift"
    local found expected
    found=$(unguarded_imports "$dir"/*.swift | sed 's|^.*/||; s|:.*$||' | sort -u)
    expected=$(cd "$dir" && ls bad-*.swift | sort)
    rm -rf "$dir"
    if [ "$found" != "$expected" ]; then
        echo "check-apple-layout: the source scan is broken: it flagged [${found//$'\n'/ }]" \
            "where it must flag [${expected//$'\n'/ }]; fix unguarded_imports in $0" >&2
        exit 2
    fi
}

scan_sources() {
    scan_self_test
    local problems files
    mapfile -d '' files < <(find Sources Tests Plugins -name '*.swift' -print0 | sort -z)
    problems=$(unguarded_imports "${files[@]}")
    if [ -n "$problems" ]; then
        echo "$problems" | sed 's/$/ outside a Linux condition: a Mac builds this file without that module; wrap it in `#if canImport(CWebKitGTK)` (WebKitGTK code) or `#if os(Linux)` (the stand-in)/' >&2
        echo "check-apple-layout: $(echo "$problems" | wc -l) import(s) of WebKitGTK-bound modules would break a Mac build" >&2
        return 1
    fi
    echo "check-apple-layout: sources: every import of a WebKitGTK-bound module is under a Linux condition"
}

check_manifest() {
    local dump problems
    dump=$(HYBRIDKIT_APPLE_LAYOUT=1 swift package --scratch-path "$scratch" dump-package)
    # Dependencies appear as `"byName" : [` / `"target" : [` followed by the name; the target they belong to is the
    # next `"name"` at the targets' indentation (keys are sorted: dependencies come before name).
    problems=$(echo "$dump" | awk -v bound="$bound" '
        pending != "" && /^      "name" : / { name = $3; gsub(/[",]/, "", name); print name " depends on " pending; pending = "" }
        expect { dep = $1; gsub(/[",]/, "", dep); if (dep ~ ("^(" bound ")$")) pending = pending (pending == "" ? "" : ", ") dep; expect = 0 }
        /"(byName|target)" : \[$/ { expect = 1 }
        /"pkgConfig" : "/ { print "a system library still names pkg-config package " $3 }
    ')
    if [ -n "$problems" ]; then
        echo "$problems" | sed 's/$/: in Package.swift, use linuxOnly("…") for WebKitGTK-bound dependencies (on a Mac, as here, they must drop out)/' >&2
        return 1
    fi
    echo "check-apple-layout: manifest: in the Apple layout nothing depends on a WebKitGTK-bound target or asks pkg-config"
}

build_layout() {
    # A pkg-config that records what it is asked, then answers as the real one would (a dependency, ZIPFoundation,
    # asks for zlib on Linux; on a Mac it uses Apple's Compression instead). Nothing may ask about WebKitGTK.
    local shim="$PWD/$scratch/recording-pkg-config" real
    real=$(command -v pkg-config || echo false)
    mkdir -p "$shim"
    rm -f "$shim/calls"
    printf '#!/bin/sh\necho "pkg-config $*" >> "%s/calls"\nexec "%s" "$@"\n' "$shim" "$real" > "$shim/pkg-config"
    chmod +x "$shim/pkg-config"
    local build=(env HYBRIDKIT_APPLE_LAYOUT=1 PATH="$shim:$PATH" swift build --scratch-path "$scratch")
    "${build[@]}" --product hybrid
    # `swift build` on a Mac builds every target, these too, though nothing there depends on them: they must build
    # (empty), and the GTK adapter's extension plugin must build nothing.
    for target in HybridKitGTK HybridDemo HybridBench HybridTestServers gtk-exit-child HybridKitGTKTests; do
        "${build[@]}" --target "$target"
    done
    if grep -qi 'webkit' "$shim/calls" 2>/dev/null; then
        grep -i 'webkit' "$shim/calls" | sed 's/^/asked in the Apple layout: /' >&2
        echo "check-apple-layout: something a Mac builds asked pkg-config about WebKitGTK (above); it must not:" \
            "CWebKitGTK must name no pkg-config package there and the plugin must build nothing" >&2
        return 1
    fi
    if find "$scratch/plugins/outputs" -name 'libHybridWebExtension.so' 2>/dev/null | grep -q .; then
        echo "check-apple-layout: the web-process extension was built in the Apple layout; the plugin must build" \
            "nothing where HybridKitGTK has no CWebKitGTK dependency" >&2
        return 1
    fi
    echo "check-apple-layout: build: hybrid and the WebKitGTK tests build in the Apple layout; pkg-config never asked about WebKitGTK"
}

check_hybrid() {
    local hybrid output status
    hybrid="$(HYBRIDKIT_APPLE_LAYOUT=1 swift build --scratch-path "$scratch" --show-bin-path)/hybrid"
    output=$("$hybrid" --help)
    for command in pack verify diff publish serve config cookies keygen; do
        grep -qE "^  $command " <<< "$output" || {
            echo "check-apple-layout: \`hybrid --help\` in the Apple layout lacks \`$command\`" >&2
            return 1
        }
    done
    for command in demo "bench bridge" "run ./app --screenshot x.png"; do
        status=0
        # shellcheck disable=SC2086 # the words are the command line
        output=$("$hybrid" $command 2>&1) || status=$?
        if [ "$status" -eq 0 ] || ! grep -q 'Linux' <<< "$output"; then
            echo "check-apple-layout: \`hybrid $command\` in the Apple layout must fail with a message naming" \
                "Linux; it exited $status with: $output" >&2
            return 1
        fi
    done
    echo "check-apple-layout: hybrid: package commands kept; demo, bench and run refused naming Linux"
}

scan_sources
[ "${1:-}" = "--scan-only" ] && exit 0
check_manifest
build_layout
check_hybrid
