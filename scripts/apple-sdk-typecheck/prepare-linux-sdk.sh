#!/usr/bin/env bash
# Makes an iPhoneOS SDK directory typecheck.sh can use on Linux, from a git copy of the public repository
# danpashin/sdks (its "17.4" commit holds the iOS 17.4 SDK's headers and Swift interfaces). A Mac needs none of
# this: pass Xcode's SDK to typecheck.sh.
#
#   prepare-linux-sdk.sh <git dir of a danpashin/sdks copy> <output dir, e.g. /tmp/hk-sdk/iPhoneOS17.4-current.sdk>
#       [--webkit current|as-shipped]
#
# What it does to the 17.4 SDK (sdk_patches.py; every patch checks that it applied exactly where expected):
#   - the Swift 6.0 (iOS 18) standard-library declarations HybridKit uses but 17.4's Swift 5.10 interfaces lack;
#   - --webkit current (the default): WebKit's main-actor annotations as WebKit's current headers declare them
#     (what the iOS 18.4+ / 26 SDKs Xcode 26 ships carry); as-shipped keeps 17.4's, which predate them.
# The repository stores symbolic links as copies; the two that matter are made links again.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
[ $# -ge 2 ] || { usage >&2; exit 2; }
repo="$1"
dest="$2"
shift 2
webkit=current
while [ $# -gt 0 ]; do
    case "$1" in
        --webkit) webkit="${2:-}"; shift 2 ;;
        *) usage >&2; exit 2 ;;
    esac
done
case "$webkit" in current | as-shipped) ;; *) echo "--webkit: current or as-shipped" >&2; exit 2 ;; esac

subject="$(git -C "$repo" log -1 --format=%s 2>/dev/null)" ||
    { echo "'$repo' is not a git copy of danpashin/sdks (git log failed)" >&2; exit 2; }
[ "$subject" = "17.4" ] ||
    echo "warning: HEAD of '$repo' is '$subject', not the '17.4' commit these patches were written for" >&2
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 2; }

# The output folder is replaced: refuse one that holds anything but an SDK (a mistyped path would be wiped).
if [ -e "$dest" ] && [ -n "$(ls -A "$dest" 2>/dev/null)" ] && [ ! -f "$dest/SDKSettings.json" ]; then
    echo "'$dest' is not empty and is not an SDK: give a new folder" >&2
    exit 2
fi
rm -rf "$dest"
mkdir -p "$dest"
# Only what a compiler reads: headers, module maps, Swift interfaces. Linker stubs and docs are left out (the
# repository's large .swiftdoc files may be absent from a copy; git still names the absent ones it skips, so
# those lines are dropped, and what the compiler needs is checked below instead).
git -C "$repo" archive --format=tar HEAD -- SDKSettings.json SDKSettings.plist usr/include usr/lib/swift \
    System/Library/Frameworks System/Cryptexes ':(exclude,glob)**/*.tbd' ':(exclude,glob)**/*.swiftdoc' \
    ':(exclude,glob)**/*.swiftsourceinfo' ':(exclude,glob)**/*.abi.json' ':(exclude,glob)**/*.bitstream' \
    2> >(grep -vE "^error: invalid object [0-9a-f ]+ for '.*\.swiftdoc'$" >&2) | tar -x -C "$dest"
for need in usr/lib/swift/Swift.swiftmodule/arm64-apple-ios.swiftinterface \
    System/Cryptexes/OS/System/Library/Frameworks/WebKit.framework/Headers/WKWebView.h \
    System/Library/Frameworks/SwiftUI.framework/Modules/SwiftUI.swiftmodule/arm64-apple-ios.swiftinterface \
    System/Library/Frameworks/UIKit.framework/Headers/UIView.h; do
    [ -f "$dest/$need" ] || { echo "'$repo' lacks $need: is it a complete copy of danpashin/sdks?" >&2; exit 1; }
done

# In a real SDK, usr/include/libxml links to libxml2/libxml; as a copy, clang sees the libxml2 module twice.
rm -rf "$dest/usr/include/libxml"
ln -s libxml2/libxml "$dest/usr/include/libxml"
# Frameworks that live in the OS cryptex (WebKit among them) are linked from System/Library/Frameworks in a real
# SDK; as copies, WebKit would be found twice, with patches applied to only one of them.
cryptex="System/Cryptexes/OS/System/Library/Frameworks"
for framework in "$dest/$cryptex"/*.framework; do
    [ -e "$framework" ] || continue
    name="$(basename "$framework")"
    rm -rf "$dest/System/Library/Frameworks/$name"
    ln -s "../../../$cryptex/$name" "$dest/System/Library/Frameworks/$name"
done

python3 "$here/sdk_patches.py" "$dest" "$webkit"
echo "prepared $dest ($(du -sh "$dest" | cut -f1)); check with:"
echo "  $here/typecheck.sh --sdk $dest --apinotes <dir with Dispatch.apinotes and os.apinotes>"
