#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import HybridKit

/// Settles the promise of one `postMessage` made to a reply-capable handler.
@GTKActor
final class GTKScriptMessageReply: ScriptMessageReply {
    private var reply: OpaquePointer?
    /// The JavaScript context of the message, in which the reply value is built.
    private let context: UnsafeMutablePointer<JSCContext>?

    init(reply: OpaquePointer, value: UnsafeMutablePointer<JSCValue>) {
        self.reply = webkit_script_message_reply_ref(reply)
        context = jsc_value_get_context(value).map { g_object_ref($0).assumingMemoryBound(to: JSCContext.self) }
    }

    isolated deinit {
        // A reply dropped unanswered must still settle the page's promise, or the page waits forever.
        settle { reply in webkit_script_message_reply_return_error_message(reply, "the native side dropped the reply") }
        if let context { g_object_unref(UnsafeMutableRawPointer(context)) }
    }

    func resolve(json: String) {
        settle { reply in
            guard let context, let value = jsc_value_new_from_json(context, json) else {
                webkit_script_message_reply_return_error_message(reply, "reply is not valid JSON")
                return
            }
            webkit_script_message_reply_return_value(reply, value)
            g_object_unref(UnsafeMutableRawPointer(value))
        }
    }

    func reject(message: String) {
        settle { reply in webkit_script_message_reply_return_error_message(reply, message) }
    }

    private func settle(_ body: (OpaquePointer) -> Void) {
        guard let reply else { return }
        self.reply = nil
        body(reply)
        webkit_script_message_reply_unref(reply)
    }
}
#endif
