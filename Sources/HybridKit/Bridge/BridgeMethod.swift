import Foundation

/// One native method, with its argument decoding and result encoding erased to JSON text.
public struct BridgeMethod: Sendable {
    enum Body: Sendable {
        /// Runs inline on the engine's thread: no hop, the cheapest round trip.
        case sync(@Sendable (Substring.UTF8View, CallContext) throws -> String)
        case async(@Sendable (Substring.UTF8View, CallContext) async throws -> String)
        case forward(module: String, method: String)
        /// Sends each element through the sink, which suspends while the page has not made room for it.
        case stream(@Sendable (Substring.UTF8View, CallContext, BridgeStreamSink) async throws -> Void)
    }

    let body: Body
    /// Overrides the bridge's ``BridgeLimits/callTimeout`` (and ``BridgeLimits/syncCallTimeout``) for this method.
    let timeout: Duration?
    /// Whether pages may call it synchronously (`hybrid.callSync`), which blocks their main thread until it
    /// answers. Only methods that say so: a page must not be able to freeze itself on any method.
    var synchronous = false

    /// How a page may call it, as `hybrid.has` tells: `sync` methods can be called both ways.
    var kind: String {
        if case .stream = body { return "stream" }
        return synchronous ? "sync" : "async"
    }

    // Shared: building a coder per call costs more than the coding of a small message. Foundation's coders
    // are safe to share once configured.
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .custom(BinaryCoding.decode(from:))
        return decoder
    }()
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .custom(BinaryCoding.encode(_:to:))
        return encoder
    }()

    static func decode<Args: Decodable>(_ type: Args.Type, from payload: Substring.UTF8View) throws(BridgeError) -> Args
    {
        // Decided here, not by the platform's decoder: a lone surrogate is refused the same way everywhere.
        // A plain string literal (no escapes, so no lone surrogate either) is its own bytes.
        if Args.self == String.self, let string = JSONStringFastPath.plainString(payload) as? Args { return string }
        if let escape = JSONShape.loneSurrogateEscape(in: payload) {
            throw .badArguments("arguments hold a lone UTF-16 surrogate (\(escape)); strings must be valid Unicode")
        }
        do {
            return try decoder.decode(Args.self, from: Data(payload))
        } catch let error as DecodingError {
            throw .badArguments("arguments do not match \(Args.self): \(DecodingErrorSummary(error))")
        } catch {
            throw .badArguments("arguments are not valid JSON")
        }
    }

    static func encode<Result: Encodable>(_ result: Result) throws(BridgeError) -> String {
        if let string = result as? String, let literal = JSONStringFastPath.literal(string) { return literal }
        do {
            return String(decoding: try encoder.encode(result), as: UTF8.self)
        } catch let error as BridgeError {
            throw error
        } catch {
            throw .internalError("the method's result could not be encoded as JSON")
        }
    }
}

/// A one-line, page-safe account of why decoding failed.
struct DecodingErrorSummary: CustomStringConvertible {
    let error: DecodingError
    init(_ error: DecodingError) { self.error = error }

    var description: String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "the value" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context)) is not \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)) is missing (\(type))"
        case .keyNotFound(let key, _): return "'\(key.stringValue)' is missing"
        case .dataCorrupted(let context): return "\(path(context)) is malformed"
        @unknown default: return "unreadable arguments"
        }
    }
}
