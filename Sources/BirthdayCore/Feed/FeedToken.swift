/// The secret in the feed URL `/calendar/<token>.ics`.
///
/// Anyone holding the URL can read the calendar, so the token is the only
/// access control: 128 random bits from the system's secure generator,
/// written as 32 lower-case hex digits (safe in URLs and paths). Rotating it
/// (storing a new one) cuts off every old subscriber at once. Tokens are
/// never logged.
public enum FeedToken {
    /// How many random bits a generated token carries.
    public static let bits = 128

    /// A new random token: 32 lower-case hex digits.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// A token drawn from `generator`; tests pass a seeded one.
    static func generate(using generator: inout some RandomNumberGenerator) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(bits / 4)
        for _ in 0..<(bits / 64) {
            var word: UInt64 = generator.next()
            for _ in 0..<16 {
                bytes.append(digits[Int(word >> 60)])
                word <<= 4
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `a` and `b` are the same token, taking the same time for any
    /// two inputs of a given length, so response timing does not reveal how
    /// much of a guess was right. Only the lengths can be learned, and the
    /// length of a token is no secret.
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        constantTimeEquals(a.utf8, b.utf8)
    }

    /// ``constantTimeEquals(_:_:)-(String,String)`` over bytes (a token
    /// still inside a request's path, say), with the same timing rule.
    @inlinable
    public static func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        var lhs = a.makeIterator()
        var rhs = b.makeIterator()
        var difference: UInt8 = a.count == b.count ? 0 : 1
        while true {
            switch (lhs.next(), rhs.next()) {
            case (let x?, let y?): difference |= x ^ y
            case (_?, nil), (nil, _?): difference |= 1
            case (nil, nil): return difference == 0
            }
        }
    }

    /// Whether `text` looks like a token this type generates (32 hex digits).
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == bits / 4 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
