/// The ids logs and `birthdays status` show instead of the ones in the
/// database.
///
/// A person's id is the vCard `UID` or a hash of the name
/// (``PersonID``), and a reminder's id starts with it: written to a journal
/// with its fire time, either would tell who has a birthday when (an
/// unsalted name hash falls to a list of common names). So every id that
/// leaves the database for a log line or a status report goes through a
/// keyed hash first: SipHash-2-4 ([Aumasson and Bernstein,
/// 2012](https://www.aumasson.jp/siphash/siphash.pdf)), a pseudorandom
/// function made for short inputs, under a 128-bit secret that each
/// database creates for itself and never shows. Without the secret the
/// public id reveals nothing about the id it stands for; with the same
/// database it is stable, so a log line, `status` and `snooze` agree.
///
/// Forms: `r-<16 hex digits>` for a reminder, `p-<16 hex digits>` for a
/// person. A snoozed copy keeps its suffix (`r-…-snooze`), so it is told
/// apart from the reminder it repeats.
public struct PublicID: Sendable, Hashable {
    /// The secret's 128 bits as two 64-bit halves (little-endian, as SipHash reads its key).
    private let k0: UInt64
    private let k1: UInt64

    /// A key from 32 hex digits (the form the database stores), or `nil`.
    public init?(hexKey: String) {
        let bytes = Array(hexKey.utf8)
        guard bytes.count == 32 else { return nil }
        var values: [UInt8] = []
        values.reserveCapacity(16)
        for pair in stride(from: 0, to: 32, by: 2) {
            guard let high = Self.nibble(bytes[pair]), let low = Self.nibble(bytes[pair + 1]) else { return nil }
            values.append(high << 4 | low)
        }
        self.init(key: values)
    }

    /// A key of 16 bytes.
    public init?(key: [UInt8]) {
        guard key.count == 16 else { return nil }
        k0 = Self.load(key, 0)
        k1 = Self.load(key, 8)
    }

    /// A new random key, and the 32 hex digits to store it as.
    public static func generate() -> (ids: PublicID, hexKey: String) {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let hexKey = key.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return (PublicID(k0: load(key, 0), k1: load(key, 8)), hexKey)
    }

    private init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// The public form of a reminder (notification) id: `r-<hash>`, with a
    /// `-snooze` suffix kept.
    public func reminder(_ id: String) -> String {
        let suffix = "-snooze"
        if id.hasSuffix(suffix) { return "r-" + hex(String(id.dropLast(suffix.count))) + suffix }
        return "r-" + hex(id)
    }

    /// The public form of a person id: `p-<hash>`.
    public func person(_ id: String) -> String {
        "p-" + hex(id)
    }

    /// Whether `text` has the shape of a public reminder or person id.
    public static func looksPublic(_ text: String) -> Bool {
        var body = Substring(text)
        if body.hasSuffix("-snooze") { body = body.dropLast(7) }
        guard body.count == 18, body.hasPrefix("r-") || body.hasPrefix("p-") else { return false }
        return body.dropFirst(2).utf8.allSatisfy { nibble($0) != nil }
    }

    /// 16 lower-case hex digits of SipHash-2-4 of `text`'s UTF-8 bytes.
    func hex(_ text: String) -> String {
        let hex = String(SipHash.hash(Array(text.utf8), k0: k0, k1: k1), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func load(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// SipHash-2-4 with a 64-bit result, as specified in the paper (and as the
/// reference implementation's test vectors check).
enum SipHash {
    static func hash(_ message: [UInt8], k0: UInt64, k1: UInt64) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ k1

        @inline(__always) func round() {
            v0 = v0 &+ v1
            v1 = v1.rotatedLeft(13)
            v1 ^= v0
            v0 = v0.rotatedLeft(32)
            v2 = v2 &+ v3
            v3 = v3.rotatedLeft(16)
            v3 ^= v2
            v0 = v0 &+ v3
            v3 = v3.rotatedLeft(21)
            v3 ^= v0
            v2 = v2 &+ v1
            v1 = v1.rotatedLeft(17)
            v1 ^= v2
            v2 = v2.rotatedLeft(32)
        }

        let whole = message.count / 8 * 8
        var offset = 0
        while offset < whole {
            var m: UInt64 = 0
            for i in 0..<8 { m |= UInt64(message[offset + i]) << (8 * UInt64(i)) }
            v3 ^= m
            round()
            round()
            v0 ^= m
            offset += 8
        }
        var last = UInt64(message.count & 0xff) << 56
        for i in 0..<(message.count - whole) { last |= UInt64(message[whole + i]) << (8 * UInt64(i)) }
        v3 ^= last
        round()
        round()
        v0 ^= last
        v2 ^= 0xff
        round()
        round()
        round()
        round()
        return v0 ^ v1 ^ v2 ^ v3
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
