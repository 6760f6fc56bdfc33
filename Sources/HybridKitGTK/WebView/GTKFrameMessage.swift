#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridKit

/// Messages from the frame-stamping web-process extension (WebProcessExtension/frame_stamp.c): a post from the
/// bridge runtime, with the URI, security origin and main-frame flag of the document that made it, as the web
/// process knows them.
enum GTKFrameMessage {
    /// Must match HYBRID_FRAME_POST_MESSAGE in the extension.
    static let postName = "hybrid.frame-post"

    struct Post {
        let handlerName: String
        let text: String
        let frame: FrameInfo
    }

    /// Reads a `(ssssb)` post (name, text, URI, origin, is main frame); nil for any other message or shape.
    static func post(from message: UnsafeMutablePointer<WebKitUserMessage>) -> Post? {
        guard borrowGString(webkit_user_message_get_name(message)) == postName,
            let parameters = webkit_user_message_get_parameters(message),
            borrowGString(g_variant_get_type_string(parameters)) == "(ssssb)"
        else { return nil }
        func string(_ index: Int) -> String {
            guard let child = g_variant_get_child_value(parameters, gsize(index)) else { return "" }
            defer { g_variant_unref(child) }
            return borrowGString(g_variant_get_string(child, nil)) ?? ""
        }
        let isMain: Bool = {
            guard let child = g_variant_get_child_value(parameters, 4) else { return false }
            defer { g_variant_unref(child) }
            return g_variant_get_boolean(child) != 0
        }()
        return Post(
            handlerName: string(0), text: string(1),
            frame: FrameInfo(url: URL(string: string(2)), securityOrigin: string(3), isMainFrame: isMain))
    }
}

/// Answers one frame post with a string the extension hands to the frame's callback.
@GTKActor
final class GTKFrameMessageReply: ScriptMessageReply {
    private var message: UnsafeMutablePointer<WebKitUserMessage>?

    init(message: UnsafeMutablePointer<WebKitUserMessage>) {
        g_object_ref(message)
        self.message = message
    }

    isolated deinit {
        settle(#"[{"k":"err","e":{"code":"internal","message":"the native side dropped the reply"}}]"#)
    }

    func resolve(json: String) {
        settle(json)
    }

    func reject(message: String) {
        let quoted = (try? JSONEncoder().encode(message)).map { String(decoding: $0, as: UTF8.self) } ?? "\"error\""
        settle(#"[{"k":"err","e":{"code":"internal","message":\#(quoted)}}]"#)
    }

    private func settle(_ text: String) {
        guard let message else { return }
        self.message = nil
        let reply = webkit_user_message_new("hybrid.frame-reply", g_variant_new_string(text))
        webkit_user_message_send_reply(message, reply)
        g_object_unref(message)
    }
}
#endif
