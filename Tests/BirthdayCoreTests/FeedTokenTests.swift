import TestSupport
import Testing

@testable import BirthdayCore

@Suite struct FeedTokenTests {
    @Test func generatedTokensAre32HexDigitsAndDiffer() {
        let tokens = (0..<100).map { _ in FeedToken.generate() }
        for token in tokens {
            #expect(token.utf8.count == 32)
            #expect(FeedToken.isWellFormed(token))
        }
        #expect(Set(tokens).count == tokens.count)
    }

    /// Every bit of the generator's output reaches the token.
    @Test func tokenSpellsOutTheGeneratorsBits() {
        struct Fixed: RandomNumberGenerator {
            var values: [UInt64]
            mutating func next() -> UInt64 { values.removeFirst() }
        }
        var generator = Fixed(values: [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210])
        #expect(FeedToken.generate(using: &generator) == "0123456789abcdeffedcba9876543210")
    }

    @Test(arguments: [
        ("abc", "abc", true), ("abc", "abd", false), ("abc", "ab", false), ("ab", "abc", false),
        ("", "", true), ("", "a", false), ("é", "e\u{301}", false),
    ])
    func constantTimeEqualsComparesBytes(a: String, b: String, equal: Bool) {
        #expect(FeedToken.constantTimeEquals(a, b) == equal)
    }

    @Test(arguments: ["", "0123456789ABCDEF0123456789abcdef", "0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdeg"])
    func malformedTokensAreRecognized(text: String) {
        #expect(!FeedToken.isWellFormed(text))
    }
}
