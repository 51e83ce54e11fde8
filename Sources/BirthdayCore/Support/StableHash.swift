/// A hash that is the same in every process and on every machine (64-bit
/// FNV-1a), unlike Swift's `Hasher`. Used for derived ids, fingerprints and
/// entity tags, never for secrets.
package enum StableHash {
    package static func value(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = start
        add(bytes, to: &hash)
        return hash
    }

    /// The value of no bytes: where ``add(_:to:)`` starts.
    package static let start: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Goes on from `hash` with `bytes`: the value of what came before and these bytes after it.
    @inline(__always)
    package static func add(_ bytes: some Sequence<UInt8>, to hash: inout UInt64) {
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
    }

    /// 16 lower-case hex digits of a value.
    package static func hex(value: UInt64) -> String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    package static func value(_ text: String) -> UInt64 { value(text.utf8) }

    /// 16 lower-case hex digits.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        hex(value: value(bytes))
    }

    /// The hash fed piece by piece: the same value as ``value(_:)-(String)`` of
    /// the pieces joined, without joining them.
    package struct Running {
        package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

        package init() {}

        package mutating func add(_ text: String) {
            var text = text
            text.withUTF8 { add($0) }
        }

        /// `texts` joined by `separator`.
        package mutating func add(_ texts: [String], separator: String) {
            for (index, text) in texts.enumerated() {
                if index > 0 { add(separator) }
                add(text)
            }
        }

        package mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
            var hash = value
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            value = hash
        }

        /// 16 lower-case hex digits.
        package var hex: String { StableHash.hex(value: value) }
    }

    /// 16 lower-case hex digits of the text's UTF-8 bytes.
    package static func hex(_ text: String) -> String { hex(text.utf8) }
}
