import CZlib
import Foundation
import NIOCore

/// The feed body in gzip (RFC 1952), made with the system's zlib once per
/// revision of the feed, so a calendar client that asks for it
/// (`Accept-Encoding: gzip`, as vdirsyncer and most clients do) downloads
/// a fraction of the bytes.
enum Gzip {
    struct Failure: Error, CustomStringConvertible {
        var code: Int32
        var description: String { "zlib failed to compress the feed (\(code))" }
    }

    /// `bytes` compressed at zlib's level 9 (done once per revision, so the
    /// smallest output is worth its time).
    static func compress(_ bytes: ByteBuffer) throws(Failure) -> ByteBuffer {
        var stream = z_stream()
        let initialized = czlib_deflate_init_gzip(&stream, 9)
        guard initialized == Z_OK else { throw Failure(code: initialized) }
        defer { deflateEnd(&stream) }
        let input = Array(bytes.readableBytesView)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw Failure(code: status) }
        return ByteBuffer(bytes: output[..<Int(stream.total_out)])
    }

    /// Whether an `Accept-Encoding` field value accepts gzip
    /// ([RFC 9110 §12.5.3](https://www.rfc-editor.org/rfc/rfc9110#section-12.5.3)):
    /// `gzip` (or `x-gzip`, or `*`) listed without `q=0`.
    static func isAccepted(by acceptEncoding: some StringProtocol) -> Bool {
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let name = parts.first?.trimmingCharacters(in: .whitespaces).lowercased(),
                name == "gzip" || name == "x-gzip" || name == "*"
            else { continue }
            let q =
                parts.dropFirst().compactMap { parameter -> Double? in
                    let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                    return pair.count == 2 && pair[0] == "q" ? Double(pair[1]) : nil
                }.first ?? 1
            return q > 0
        }
        return false
    }
}
