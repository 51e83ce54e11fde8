/// A deterministic random number generator (SplitMix64): the same numbers
/// from the same seed on every run and machine, for the generated data of
/// the benchmarks and the tests. Never for anything secret.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `p`.
    package mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }

    /// A number in `0..<n`.
    package mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// One of `items`, which must not be empty.
    package mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
