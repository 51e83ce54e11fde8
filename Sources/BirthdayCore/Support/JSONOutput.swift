import Foundation

/// Writes `--json` output (and the feed server's JSON twin) from `Encodable` output structs.
///
/// The README documents each shape with its keys in order, so this encoder
/// keeps keys in the order a type encodes them (declaration order for
/// synthesized conformances), unlike Foundation's `JSONEncoder`, whose order
/// is unspecified on Linux. Optional properties are always written, as
/// `null` when absent, never left out. Strings are escaped as RFC 8259
/// requires; `/` and non-ASCII text are written as they are.
public enum JSONOutput {
    /// Compact JSON, or indented by two spaces when `pretty`.
    public static func string(_ value: some Encodable, pretty: Bool = false) -> String {
        // Encoding plain output structs cannot fail: they hold only strings,
        // numbers, booleans, arrays and nested structs.
        let root = (try? NodeEncoder.node(for: value, codingPath: [])) ?? Box(.null)
        var out: [UInt8] = []
        out.reserveCapacity(256)
        root.write(to: &out, pretty: pretty, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }
}

/// An object key chosen at run time, for shapes whose keys are data
/// (settings by name, counts by state).
public struct JSONKey: CodingKey {
    public var stringValue: String
    public var intValue: Int? { nil }
    public init(_ string: String) { stringValue = string }
    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

/// A JSON value under construction, with ordered object keys. Shared by
/// reference, since `Encoder` hands out containers that are filled after
/// they are attached; arrays and objects grow in place.
private final class Box {
    enum Kind {
        case null
        case bool(Bool)
        case number(String)
        case string(String)
        case array
        case object
    }

    var kind: Kind
    var items: [Box] = []
    var members: [(String, Box)] = []

    init(_ kind: Kind) { self.kind = kind }

    // Serializes into bytes: `upcoming --json` over thousands of people
    // spends its time here, and appending bytes is several times cheaper
    // than growing a String scalar by scalar.
    func write(to out: inout [UInt8], pretty: Bool, indent: Int) {
        func newline(_ level: Int) {
            guard pretty else { return }
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: level * 2))
        }
        switch kind {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let value): Box.escape(value, into: &out)
        case .array:
            guard !items.isEmpty else { return out.append(contentsOf: "[]".utf8) }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                item.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            newline(indent)
            out.append(UInt8(ascii: "]"))
        case .object:
            guard !members.isEmpty else { return out.append(contentsOf: "{}".utf8) }
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                Box.escape(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(0x20) }
                value.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            newline(indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func escape(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20: out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

// MARK: - The encoder

private struct NodeEncoder: Encoder {
    let box: Box
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(box: Box = Box(.null)) { self.box = box }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = box.kind {} else { box.kind = .object }
        return KeyedEncodingContainer(KeyedContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = box.kind {} else { box.kind = .array }
        return UnkeyedContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(box: box, codingPath: codingPath)
    }

    /// The node for `value`: scalars directly, anything else through its own encoder.
    static func node(for value: some Encodable, codingPath: [any CodingKey]) throws -> Box {
        switch value {
        case let value as String: return Box(.string(value))
        case let value as Bool: return Box(.bool(value))
        case let value as Int: return Box(.number(String(value)))
        case let value as Int64: return Box(.number(String(value)))
        case let value as Int32: return Box(.number(String(value)))
        case let value as UInt32: return Box(.number(String(value)))
        case let value as Double: return Box(value.isFinite ? .number(String(value)) : .null)
        default:
            let encoder = NodeEncoder(box: Box(.null), codingPath: codingPath)
            try value.encode(to: encoder)
            return encoder.box
        }
    }

    init(box: Box, codingPath: [any CodingKey]) {
        self.box = box
        self.codingPath = codingPath
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: Box
    var codingPath: [any CodingKey]

    private func append(_ key: Key, _ child: Box) {
        box.members.append((key.stringValue, child))
    }

    mutating func encodeNil(forKey key: Key) throws { append(key, Box(.null)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        append(key, try NodeEncoder.node(for: value, codingPath: codingPath + [key]))
    }

    // Synthesized conformances skip absent optionals with `encodeIfPresent`;
    // the documented shapes write them as null.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = Box(.object)
        append(key, nested)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = Box(.array)
        append(key, nested)
        return UnkeyedContainer(box: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(box: box, codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(box: box, codingPath: codingPath + [key]) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let box: Box
    var codingPath: [any CodingKey]

    var count: Int { box.items.count }

    private func append(_ child: Box) {
        box.items.append(child)
    }

    mutating func encodeNil() throws { append(Box(.null)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        append(try NodeEncoder.node(for: value, codingPath: codingPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = Box(.object)
        append(nested)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: nested, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = Box(.array)
        append(nested)
        return UnkeyedContainer(box: nested, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(box: box, codingPath: codingPath) }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let box: Box
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { box.kind = .null }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let node = try NodeEncoder.node(for: value, codingPath: codingPath)
        box.kind = node.kind
        box.items = node.items
        box.members = node.members
    }
}
