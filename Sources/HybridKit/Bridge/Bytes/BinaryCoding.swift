import Foundation
import Synchronization

/// How `Data` crosses the bridge inside Codable values: never as base64, always by reference.
///
/// - Native → page: a `Data` a method returns (or a stream yields, or an event carries) is kept in
///   ``ByteRedemptions`` for the frame the answer is for and written as `{"$hybridBytes":"<id>","size":n}`; the
///   page's runtime fetches the id from the bridge's scheme and puts an `ArrayBuffer` in its place.
/// - Page → native: the runtime sends the bytes of `ArrayBuffer`s, typed arrays and `Blob`s in one upload and
///   writes `{"$hybridBytes":<index>}` where each was; a `Data` argument decodes from its part. A base64 string
///   still decodes, as Foundation's default strategy did.
///
/// Which store and owner an encoding uses, and which parts a decoding reads, are task-locals the bridge binds
/// around a method, so the shared coders stay shared.
enum BinaryCoding {
    /// Where the `Data` of one answer goes: kept for `owner` (the security origin of the frame it is for).
    final class Outgoing: Sendable {
        let store: ByteRedemptions
        let owner: String
        private let registered = Atomic<Int>(0)

        init(store: ByteRedemptions, owner: String) {
            self.store = store
            self.owner = owner
        }

        /// Whether this answer holds bytes (the page then looks for them); false for almost every answer.
        var didRegister: Bool { registered.load(ordering: .relaxed) > 0 }

        fileprivate func register(_ data: Data) throws(BridgeError) -> String {
            do throws(ByteRedemptions.Failure) {
                let id = try store.register(data, owner: owner)
                registered.add(1, ordering: .relaxed)
                return id
            } catch {
                throw BinaryCoding.error(for: error)
            }
        }
    }

    /// The store and owner for `Data` encoded now; nil where bytes cannot go (a synchronous call's answer, a page
    /// handler's argument, published state).
    /// (A `TaskLocal` constant rather than the `@TaskLocal` wrapper: SDKs before iOS 18 declare the wrapper in a way
    /// Swift 6 reports as shared mutable state.)
    static let outgoing = TaskLocal<Outgoing?>(wrappedValue: nil)
    /// The parts of the binary call being decoded, in the page's order; nil outside one.
    static let incoming = TaskLocal<[Data]?>(wrappedValue: nil)

    enum PlaceholderKey: String, CodingKey {
        case bytes = "$hybridBytes"
        case size
    }

    static func encode(_ data: Data, to encoder: any Encoder) throws {
        guard let outgoing = Self.outgoing.get() else {
            throw BridgeError.badArguments(
                "bytes (Data) cannot be sent here: only an asynchronous call's result (hybrid.call), a stream's "
                    + "elements and events carry them; synchronous calls, page handlers and published state do not")
        }
        let id = try outgoing.register(data)
        var container = encoder.container(keyedBy: PlaceholderKey.self)
        try container.encode(id, forKey: .bytes)
        try container.encode(data.count, forKey: .size)
    }

    static func decode(from decoder: any Decoder) throws -> Data {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not base64"))
            }
            return data
        }
        let container = try decoder.container(keyedBy: PlaceholderKey.self)
        let index = try container.decode(Int.self, forKey: .bytes)
        guard let parts = Self.incoming.get(), parts.indices.contains(index) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "names bytes the call did not send"))
        }
        return parts[index]
    }

    static func error(for failure: ByteRedemptions.Failure) -> BridgeError {
        switch failure {
        case .unknown: return .internalError("the bytes are gone")
        case .tooLarge(let size, let limit):
            return .badArguments("\(size) bytes exceed BridgeLimits.maxBinaryBytes (\(limit))")
        case .storeFull(let held, let limit):
            return .denied(
                "bytes waiting for pages already fill BridgeLimits.maxHeldBinaryBytes (\(held) of \(limit)); "
                    + "retry once the page has read them")
        case .tooManyHeld(let held, let limit):
            return .denied(
                "\(held) values of bytes already wait for pages, BridgeLimits.maxHeldBinaryValues (\(limit)); "
                    + "retry once the page has read them, or answer with fewer Data values")
        case .opaqueOrigin:
            return .denied("bytes cannot go to or come from a frame with an opaque origin (a sandboxed frame)")
        }
    }

    /// Whether the JSON text of answers holds a placeholder, for answers built from several encodings (a
    /// stream's chunk). Looks for the key and the quote of its value, not for the object's brace: the encoder
    /// writes an object's keys in no fixed order. (In JSON text a quote inside a string is escaped, so the
    /// sequence stands only for a key `$hybridBytes` with a string value.)
    static func mentionsBytes(_ json: String) -> Bool {
        json.utf8.count >= 16 && json.contains(#""$hybridBytes":""#)
    }
}
