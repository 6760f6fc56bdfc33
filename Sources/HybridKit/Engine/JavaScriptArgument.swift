/// A value ``WebEngine/callAsyncJavaScript(_:arguments:)`` hands to a page function as a JavaScript value: a string
/// arrives as a string, nothing in it is parsed or evaluated.
///
/// Only what both engines pass alike. WebKitGTK 2.50 refuses booleans and arrays among the `GVariant` arguments of
/// `webkit_web_view_call_async_javascript_function` ("Invalid parameter"; tried), and has no `null`; strings,
/// numbers and objects of them arrive on both (an object member named `__proto__` does not: WebKitGTK drops it).
public enum JavaScriptArgument: Sendable, Equatable {
    case string(String)
    case number(Double)
    /// An object with these own properties.
    case object([String: JavaScriptArgument])
}
