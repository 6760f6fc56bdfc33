import Foundation

/// One body arriving over the channel: the bytes go into the store at their offsets as they arrive (the store's
/// buffer is the only copy), and a request streaming the body sends them on at once. Owned by the connection that
/// carries it.
public struct BodyChannelUpload: Sendable {
    let store: BodyStore
    let id: String
    let owner: BodyOwner
    /// The size the body was reserved with, which the upload announced.
    public let expected: Int
    public private(set) var received = 0

    /// Stores the next bytes. On a refusal the body is discarded (a request streaming it fails).
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws(BodyChannelRefusal) {
        guard !bytes.isEmpty else { return }
        do {
            try store.append(bytes, at: received, to: id, owner: owner)
        } catch {
            store.discard(id, owner: owner)
            throw .store(error)
        }
        received += bytes.count
    }

    /// ``write(_:)`` for bytes in a `Data` or an array.
    public mutating func write(contentsOf bytes: some ContiguousBytes) throws(BodyChannelRefusal) {
        let outcome: Result<Void, BodyChannelRefusal> = bytes.withUnsafeBytes { raw in
            Result { () throws(BodyChannelRefusal) in try write(raw) }
        }
        try outcome.get()
    }

    /// The request ended: every announced byte must be in.
    public func finish() throws(BodyChannelRefusal) {
        guard received == expected else {
            abandon()
            throw .cut(received: received, expected: expected)
        }
    }

    /// The upload stopped (connection closed, timed out): the body goes, and a request streaming it fails.
    public func abandon() {
        store.discard(id, owner: owner)
    }
}
