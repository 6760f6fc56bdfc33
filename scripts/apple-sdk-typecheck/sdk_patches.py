#!/usr/bin/env python3
"""Patches an extracted iOS 17.4 SDK so it type-checks code written for iOS 18 the way the iOS 18+ SDKs do.

Usage: sdk_patches.py <sdk dir> current|as-shipped     (run by prepare-linux-sdk.sh)

1. Swift 6.0 declarations (iOS 18 SDKs ship the Swift 6.0 standard library; 17.4 ships 5.10's) that HybridKit
   calls. Each is the Swift 6.0 form of the declaration, added to the arm64/arm64e interfaces:
     Swift         Result.get() throws(Failure); Result.init(catching:) with a typed body (SE-0413);
                   Optional.take() (SE-0437); _willThrowTyped(_:), which SILGen calls for every typed `throw`
                   (without it the SIL pass crashes on the first one)
     _Concurrency  the #isolation macro (SE-0420)
     Dispatch      DispatchSpecificKey: Sendable where T: Sendable
   The Synchronization module (new in iOS 18) is not added here: typecheck.sh compiles a stand-in for it.
2. "current": WebKit's main-actor annotations. WebKit marks API that must run on the main thread with
   WK_SWIFT_UI_ACTOR (= NS_SWIFT_UI_ACTOR) since 2024; the iOS 18.0/18.1 SDKs carry it on WKNavigationDelegate,
   WKDownloadDelegate and WKDownload, and WebKit's current headers (what Xcode 26's SDKs ship) also on
   WKUIDelegate, WKScriptMessageHandler(WithReply), WKURLSchemeHandler, WKHTTPCookieStoreObserver and
   WKHTTPCookieStore, including the completion blocks of their methods. Those annotations decide whether
   HybridKitWK's delegate conformances type-check in Swift 6 mode, so checking against 17.4's headers as shipped
   would report isolation errors that Xcode 26 does not.
Every patch fails loudly if its anchor is not found exactly as often as expected.
"""
import glob
import os
import re
import sys

ACTOR = "WK_SWIFT_UI_ACTOR"


def fail(message):
    sys.exit(f"sdk_patches.py: {message}")


def interfaces(sdk, module):
    paths = sorted(glob.glob(os.path.join(sdk, "usr/lib/swift", f"{module}.swiftmodule", "*-apple-ios.swiftinterface")))
    if not paths:
        fail(f"{module}.swiftmodule has no iOS .swiftinterface in {sdk}")
    return paths


def rewrite(path, change):
    with open(path) as f:
        before = f.read()
    after = change(before)
    if after != before:
        with open(path, "w") as f:
            f.write(after)


def replace_once(text, old, new, where):
    if new in text:
        return text  # applied by an earlier run
    if text.count(old) != 1:
        fail(f"{where}: expected exactly one {old!r}, found {text.count(old)}")
    return text.replace(old, new)


def append(text, declaration):
    return text if declaration in text else text.rstrip("\n") + "\n" + declaration + "\n"


def backport_swift_6(sdk):
    for path in interfaces(sdk, "Swift"):
        rewrite(path, lambda t: replace_once(
            t, "  @inlinable public func get() throws -> Success {",
            "  @_alwaysEmitIntoClient public func get() throws(Failure) -> Success {", path))
        rewrite(path, lambda t: replace_once(
            t,
            "extension Swift.Result where Failure == any Swift.Error {\n"
            "  @_transparent public init(catching body: () throws -> Success) {\n    do {",
            "extension Swift.Result {\n"
            "  @_alwaysEmitIntoClient public init(catching body: () throws(Failure) -> Success) {\n"
            "    do throws(Failure) {", path))
        rewrite(path, lambda t: append(
            t, "extension Swift.Optional {\n"
               "  @_alwaysEmitIntoClient public mutating func take() -> Swift.Optional<Wrapped> {\n"
               "    let taken = self\n    self = nil\n    return taken\n  }\n}"))
        rewrite(path, lambda t: append(
            t, '@_alwaysEmitIntoClient @_silgen_name("swift_willThrowTyped") '
               "public func _willThrowTyped<E>(_ error: E) where E : Swift.Error {\n}"))
    for path in interfaces(sdk, "_Concurrency"):
        rewrite(path, lambda t: append(
            t, "@freestanding(expression) public macro isolation<T>() -> T = Builtin.IsolationMacro"))
    for path in interfaces(sdk, "Dispatch"):
        rewrite(path, lambda t: append(
            t, "extension Dispatch.DispatchSpecificKey : Swift.Sendable where T : Swift.Sendable {\n}"))


def annotate_blocks(text, expected, where):
    """Puts the actor on every block parameter of the header's method declarations (not in comments)."""
    count = 0
    lines = []
    for line in text.split("\n"):
        if line.startswith("- (") and ACTOR + " void (^)" not in line:
            line, n = re.subn(r":\((nullable )?void \(\^\)\(", lambda m: f":({m.group(1) or ''}{ACTOR} void (^)(", line)
            count += n
        lines.append(line)
    if count not in (0, expected):  # 0: applied by an earlier run
        fail(f"{where}: expected {expected} block parameters, found {count}")
    return "\n".join(lines)


def annotate_declaration(text, declaration, where):
    """Puts the actor on the line before `declaration` (an @protocol or @interface line)."""
    marked = f"{ACTOR}\n{declaration}"
    if marked in text:
        return text
    return replace_once(text, "\n" + declaration, "\n" + marked, where)


def webkit_current(sdk):
    headers = os.path.join(sdk, "System/Library/Frameworks/WebKit.framework/Headers")
    if not os.path.isdir(headers):
        fail(f"no WebKit headers at {headers}")

    def header(name, declarations, blocks):
        path = os.path.join(headers, name)

        def change(text):
            for declaration in declarations:
                text = annotate_declaration(text, declaration, path)
            return annotate_blocks(text, blocks, path) if blocks else text

        rewrite(path, change)

    # The macro, as WebKit's WKFoundation.h defines it.
    rewrite(os.path.join(headers, "WKFoundation.h"), lambda t: t if f"#define {ACTOR}" in t else t.rstrip("\n") + (
        f"\n\n#ifdef NS_SWIFT_UI_ACTOR\n#define {ACTOR} NS_SWIFT_UI_ACTOR\n#else\n#define {ACTOR}\n#endif\n"))
    # iOS 18.0 / 18.1
    header("WKNavigationDelegate.h", ["@protocol WKNavigationDelegate <NSObject>"], 5)
    header("WKDownloadDelegate.h", ["@protocol WKDownloadDelegate <NSObject>"], 3)
    header("WKDownload.h", ["@interface WKDownload : NSObject"], 0)
    # WebKit's current headers
    header("WKUIDelegate.h", ["@protocol WKUIDelegate <NSObject>"], 8)
    header("WKScriptMessageHandler.h", ["@protocol WKScriptMessageHandler <NSObject>"], 0)
    header("WKScriptMessageHandlerWithReply.h", ["@protocol WKScriptMessageHandlerWithReply <NSObject>"], 1)
    header("WKURLSchemeHandler.h", ["@protocol WKURLSchemeHandler <NSObject>"], 0)
    header("WKHTTPCookieStore.h",
           ["@protocol WKHTTPCookieStoreObserver <NSObject>", "@interface WKHTTPCookieStore : NSObject"], 5)


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("current", "as-shipped"):
        fail("usage: sdk_patches.py <sdk dir> current|as-shipped")
    sdk, webkit = sys.argv[1], sys.argv[2]
    backport_swift_6(sdk)
    print(f"{sdk}: Swift 6.0 standard-library declarations added")
    if webkit == "current":
        webkit_current(sdk)
        print(f"{sdk}: WebKit's current main-actor annotations applied")


main()
