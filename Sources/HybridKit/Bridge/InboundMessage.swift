#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A message from a page, as the runtime writes it:
/// `H1 <kind> <id> <token> <frame> <origin> <module> <method>\n<JSON payload>`, the method percent-encoded
/// (`encodeURIComponent`), since WebViewJavascriptBridge handler names may hold spaces.
public struct InboundMessage: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case hello, call
        case jsReply = "jsreply"
        /// Opens a stream of a method's results; it also asks for the first elements (a `pull`).
        case stream
        /// Asks for up to `payload` more elements of stream `id`.
        case pull
        /// The page stopped reading stream `id`.
        case cancel
        /// The document went away for good (a frame reloaded or removed, a page not kept for back/forward): its
        /// calls and streams end now.
        case bye
        /// A call whose arguments hold bytes: its payload names their sizes first (`BinaryCallPayload`), and the
        /// bytes follow in one upload to the bridge's scheme once native has admitted the call.
        case binaryCall = "bcall"
    }
    public enum Frame: String, Sendable { case main, sub }

    public var kind: Kind
    public var id: Int
    /// Random per document: results addressed to another token are ignored by the page.
    public var token: String
    public var frame: Frame
    /// What the page says its origin is. See ``CallContext/originVerified``.
    public var origin: String
    public var module: String
    public var method: String
    /// The JSON payload, UTF-8.
    public var payload: Substring.UTF8View
    /// The sizes of the binary parts a ``Kind/binaryCall`` will upload, in order; empty for every other kind.
    public var binaryParts: [Int] = []

    public static func == (lhs: InboundMessage, rhs: InboundMessage) -> Bool {
        lhs.kind == rhs.kind && lhs.id == rhs.id && lhs.token == rhs.token && lhs.frame == rhs.frame
            && lhs.origin == rhs.origin && lhs.module == rhs.module && lhs.method == rhs.method
            && lhs.payload.elementsEqual(rhs.payload) && lhs.binaryParts == rhs.binaryParts
    }
}

/// A message that could not be read, with whatever could be recovered to tell its sender.
public struct InboundMessageError: Error, Sendable, Equatable {
    public var error: BridgeError
    public var id: Int?
    public var token: String?
    public var frame: InboundMessage.Frame?
}

/// Reads page messages without trusting them: every field is checked, every failure is a `bad_message`.
public struct InboundMessageParser: Sendable {
    public var limits: BridgeLimits
    /// A module whose method names may be any text (WebViewJavascriptBridge handler names such as
    /// `'ObjC Echo'`), up to 128 bytes without control characters; every other module's are identifiers.
    public var freeFormMethodModule: String?

    public init(limits: BridgeLimits, freeFormMethodModule: String? = nil) {
        self.limits = limits
        self.freeFormMethodModule = freeFormMethodModule
    }

    /// Reads a post holding one message.
    public func parse(_ text: String) throws(InboundMessageError) -> InboundMessage {
        let messages = parseBatch(text)
        guard messages.count == 1, let only = messages.first else {
            throw InboundMessageError(error: .badMessage("expected one message, found \(messages.count)"))
        }
        return try only.get()
    }

    /// Reads a post holding any number of messages: head and payload lines, alternating. Each message
    /// stands or falls alone; a post over the size limit falls whole.
    public func parseBatch(_ text: String) -> [Result<InboundMessage, InboundMessageError>] {
        var rest: Substring.UTF8View
        switch checkSize(text) {
        case .success(let bytes): rest = bytes
        case .failure(let error): return [.failure(error)]
        }
        var results: [Result<InboundMessage, InboundMessageError>] = []
        while let next = parseNext(&rest) { results.append(next) }
        return results
    }

    /// The post's bytes, or the error for a post over the size limit (which falls whole, unread).
    public func checkSize(_ text: String) -> Result<Substring.UTF8View, InboundMessageError> {
        let bytes = Substring(text).utf8
        guard bytes.count <= limits.maxMessageBytes else {
            return .failure(
                InboundMessageError(
                    error: .badMessage("message of \(bytes.count) bytes exceeds the limit of \(limits.maxMessageBytes)")
                ))
        }
        guard !bytes.isEmpty else {
            return .failure(InboundMessageError(error: .badMessage("message has no head line")))
        }
        return .success(bytes)
    }

    /// Reads the next message of a post and moves `rest` past it; nil when nothing is left. Reading one
    /// message at a time lets a huge post be handled over several turns without being read all at once.
    public func parseNext(_ rest: inout Substring.UTF8View) -> Result<InboundMessage, InboundMessageError>? {
        guard !rest.isEmpty else { return nil }
        guard let newline = Self.newline(in: rest) else {
            rest = rest[rest.endIndex...]
            return .failure(InboundMessageError(error: .badMessage("message has no head line")))
        }
        let head = rest[..<newline]
        let payloadStart = rest.index(after: newline)
        let payloadEnd = Self.newline(in: rest[payloadStart...]) ?? rest.endIndex
        let payload = rest[payloadStart..<payloadEnd]
        rest = payloadEnd == rest.endIndex ? rest[payloadEnd...] : rest[rest.index(after: payloadEnd)...]
        return Result { () throws(InboundMessageError) in try parseOne(head: head, payload: payload) }
    }

    private func parseOne(head: Substring.UTF8View, payload: Substring.UTF8View) throws(InboundMessageError)
        -> InboundMessage
    {
        let fields = head.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count == 8, fields[0].elementsEqual("H1".utf8) else {
            throw InboundMessageError(
                error: .badMessage("message head is not 'H1 kind id token frame origin module method'"))
        }
        let id = Self.string(fields[2]).flatMap { Int($0) }
        let token = Self.string(fields[3]).flatMap { Self.isToken($0) ? $0 : nil }
        let frame = Self.string(fields[4]).flatMap(InboundMessage.Frame.init(rawValue:))
        func fail(_ message: String) -> InboundMessageError {
            InboundMessageError(error: .badMessage(message), id: id, token: token, frame: frame)
        }
        guard let kind = Self.string(fields[1]).flatMap(InboundMessage.Kind.init(rawValue:)) else {
            throw fail("unknown message kind")
        }
        guard let id, id >= 0 else { throw fail("message id is not a non-negative integer") }
        guard let token else { throw fail("page token is malformed") }
        guard let frame else { throw fail("frame is neither 'main' nor 'sub'") }
        guard let origin = Self.string(fields[5]), !origin.isEmpty, origin.count <= 2048 else {
            throw fail("origin is malformed")
        }
        guard let module = Self.string(fields[6]), let method = Self.string(fields[7]).flatMap(Self.percentDecoded),
            (kind != .call && kind != .stream && kind != .binaryCall)
                || (Self.isName(module)
                    && (Self.isName(method) || (module == freeFormMethodModule && Self.isFreeFormName(method))))
        else { throw fail("module or method name is malformed") }
        var payload = payload
        var binaryParts: [Int] = []
        if kind == .binaryCall {
            switch BinaryCallPayload.parse(payload, maxParts: limits.maxBinaryParts, maxTotal: limits.maxBinaryBytes) {
            case .success(let parsed):
                binaryParts = parsed.sizes
                payload = payload[payload.index(payload.startIndex, offsetBy: parsed.argumentsOffset)...]
            case .failure(let error):
                throw InboundMessageError(error: error, id: id, token: token, frame: frame)
            }
        }
        if let problem = JSONShape.check(payload, maxDepth: limits.maxNestingDepth) { throw fail(problem) }
        return InboundMessage(
            kind: kind, id: id, token: token, frame: frame, origin: origin, module: module, method: method,
            payload: payload, binaryParts: binaryParts)
    }

    /// The first newline in `bytes`, found with `memchr` in the native string's buffer (stepping through a
    /// megabyte payload one index at a time cost as much as encoding it).
    static func newline(in bytes: Substring.UTF8View) -> Substring.UTF8View.Index? {
        let offset = bytes.withContiguousStorageIfAvailable { buffer -> Int? in
            guard let base = buffer.baseAddress,
                let found = memchr(base, Int32(UInt8(ascii: "\n")), buffer.count)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        switch offset {
        case .some(.some(let offset)): return bytes.index(bytes.startIndex, offsetBy: offset)
        case .some(.none): return nil
        case .none: return bytes.firstIndex(of: UInt8(ascii: "\n"))
        }
    }

    private static func string(_ bytes: Substring.UTF8View) -> String? {
        String(Substring(bytes))
    }

    /// Module and method names: an identifier, dots and dashes allowed, at most 64 characters.
    static func isName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 64,
            !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return false }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "."),
                UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }

    /// The method field as the runtime wrote it, percent-decoded; nil when the escapes are not UTF-8.
    private static func percentDecoded(_ field: String) -> String? {
        field.utf8.contains(UInt8(ascii: "%")) ? field.removingPercentEncoding : field
    }

    /// Any text a log line can show as it is: 1 to 128 bytes, no control characters.
    static func isFreeFormName(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count)
            && name.unicodeScalars.allSatisfy { !($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) }
    }

    private static func isToken(_ token: String) -> Bool {
        (8...64).contains(token.utf8.count)
            && token.utf8.allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            }
    }
}
