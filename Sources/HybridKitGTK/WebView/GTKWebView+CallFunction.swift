#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import HybridKit

/// Page functions called with arguments (`webkit_web_view_call_async_javascript_function`): the arguments travel
/// as a `GVariant` dictionary the engine turns into JavaScript values, so no source is built from them.
extension GTKWebView {
    public func callAsyncJavaScript(_ body: String, arguments: [String: JavaScriptArgument])
        async throws(EngineError) -> String?
    {
        guard !isClosed else { throw .viewClosed }
        let view = webView
        let variant = Self.variant(arguments)
        defer { g_variant_unref(variant) }
        return try await gioAsync(
            start: { callback, data in
                webkit_web_view_call_async_javascript_function(
                    view, body, -1, variant, nil, nil, nil, callback, data)
            },
            finish: { _, result in
                var error: UnsafeMutablePointer<GError>?
                guard let value = webkit_web_view_call_async_javascript_function_finish(view, result, &error) else {
                    return .failure(.javaScript(takeGError(error)))
                }
                defer { g_object_unref(UnsafeMutableRawPointer(value)) }
                if jsc_value_is_undefined(value) != 0 { return .success(nil) }
                return .success(takeGString(jsc_value_to_json(value, 0)))
            })
    }

    public func callAsyncJavaScriptIgnoringResult(
        _ body: String, arguments: [String: JavaScriptArgument]
    ) {
        guard !isClosed else { return }
        let variant = Self.variant(arguments)
        webkit_web_view_call_async_javascript_function(webView, body, -1, variant, nil, nil, nil, nil, nil)
        g_variant_unref(variant)
    }

    /// The arguments as the `a{sv}` dictionary WebKitGTK expects, sunk (the caller unreferences it).
    static func variant(_ arguments: [String: JavaScriptArgument]) -> OpaquePointer {
        let entries = arguments.map { name, value in
            g_variant_new_dict_entry(g_variant_new_string(name), g_variant_new_variant(variant(value)))
        }
        return g_variant_ref_sink(array(of: "{sv}", entries))
    }

    /// One value, floating. An object holds variants, so its members may differ in type, as in JavaScript.
    private static func variant(_ value: JavaScriptArgument) -> OpaquePointer? {
        switch value {
        case .string(let text): return string(text)
        case .number(let number): return g_variant_new_double(number)
        case .object(let members):
            return array(
                of: "{sv}",
                members.map { name, member in
                    g_variant_new_dict_entry(g_variant_new_string(name), g_variant_new_variant(variant(member)))
                })
        }
    }

    /// A string variant over one copy of the text, not validated again: `g_variant_new_string` checks every byte
    /// of what Swift already holds as valid UTF-8 (a megabyte batch is one string). Text holding a NUL, which a
    /// `GVariant` string cannot, is cut there by the checked constructor instead.
    private static func string(_ text: String) -> OpaquePointer? {
        var text = text
        return text.withUTF8 { utf8 -> OpaquePointer? in
            guard let source = utf8.baseAddress, memchr(source, 0, utf8.count) == nil,
                let copy = g_malloc(gsize(utf8.count + 1))
            else { return g_variant_new_string(String(decoding: utf8, as: UTF8.self)) }
            memcpy(copy, source, utf8.count)
            copy.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
            let type = g_variant_type_new("s")
            defer { g_variant_type_free(type) }
            return g_variant_new_from_data(type, copy, gsize(utf8.count + 1), 1, g_free, copy)
        }
    }

    private static func array(of elementType: String, _ children: [OpaquePointer?]) -> OpaquePointer? {
        let type = g_variant_type_new(elementType)
        defer { g_variant_type_free(type) }
        return children.withUnsafeBufferPointer { buffer in
            g_variant_new_array(type, buffer.baseAddress, gsize(buffer.count))
        }
    }
}
#endif
