import Foundation
import FuzzSupport
import HybridPackages
import ZIPFoundation

/// Fuzzes `DeltaDecoder`, which runs on delta bytes from a diff package before anything checks them: the signed
/// manifest covers only the rebuilt file's SHA-256 (see docs/package-format.md, "Threat model of the decoder").
///
/// The first byte picks a mode:
/// - 0: the rest after a base and a declared size is the delta as served (header, deflate stream and all);
/// - 1: the rest is a raw record stream, deflated and given a valid header here, so mutations reach the control
///   triple checks instead of dying in the inflater;
/// - 2: a base and a target are encoded and decoded again, which must give the target back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDelta(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let mode = input.byte() % 3
    let base = input.field()
    switch mode {
    case 0:
        let size = Int64(input.uint32() % (1 << 20))
        check(delta: Data(input.rest()), base: base, size: size)
    case 1:
        let size = Int64(input.uint32() % (1 << 20))
        let body = deflate(input.rest())
        var header = Array("HKDELTA".utf8) + [0, 1, 1, 0, 0]
        header += littleEndian(UInt64(base.count)) + littleEndian(UInt64(size)) + littleEndian(UInt64(body.count))
        check(delta: Data(header) + body, base: base, size: size)
    default:
        let target = input.rest()
        let delta: [UInt8]
        do { delta = try DeltaEncoder().encode(base: base, target: target) } catch {
            fail("invariant broken: encoding \(base.count) and \(target.count) bytes failed: \(error)")
        }
        var output = Data()
        do {
            try DeltaDecoder().apply(delta: Data(delta), base: Data(base), expectedSize: Int64(target.count)) {
                output.append($0)
            }
        } catch { fail("invariant broken: our own delta did not decode: \(error)") }
        require(output == Data(target), "round trip gave other bytes (\(output.count) for \(target.count))")
    }
    return 0
}

/// The decoder either refuses with a `DeltaError` or produces exactly the declared size, and never writes past it.
private func check(delta: Data, base: [UInt8], size: Int64) {
    var produced: Int64 = 0
    do {
        try DeltaDecoder().apply(delta: delta, base: Data(base), expectedSize: size) { chunk in
            produced += Int64(chunk.count)
            require(produced <= size, "wrote \(produced) bytes, past the declared \(size)")
        }
        require(produced == size, "decoded \(produced) bytes of a declared \(size)")
    } catch is DeltaError {
        require(produced <= size, "wrote \(produced) bytes before refusing, past the declared \(size)")
    } catch {
        fail("invariant broken: an error that is not a DeltaError: \(error)")
    }
}

private func deflate(_ bytes: [UInt8]) -> Data {
    var output = Data()
    let input = Data(bytes)
    do {
        _ = try Data.compress(
            size: Int64(input.count), bufferSize: 64 * 1024,
            provider: { position, size in
                input.subdata(in: Int(position)..<min(Int(position) + size, input.count))
            },
            consumer: { output.append($0) })
    } catch { fail("invariant broken: deflate failed: \(error)") }
    return output
}

private func littleEndian(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}
