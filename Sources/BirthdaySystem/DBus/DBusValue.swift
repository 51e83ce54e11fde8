import BirthdayCore
internal import CDBus

/// A value in a D-Bus message body: the subset of the
/// [D-Bus type system](https://dbus.freedesktop.org/doc/dbus-specification.html#type-system)
/// that notifications and logind use.
///
/// Arrays carry their element signature so an empty array still has a type
/// (`as` for `.array("s", [])`); a dictionary is an array of `.dictEntry`.
indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case array(elementSignature: String, [DBusValue])
    case dictEntry(DBusValue, DBusValue)
    case variant(DBusValue)
    case structure([DBusValue])
    /// A type this enum does not model, read from a message; never written.
    case unsupported(typeCode: Int32)

    /// An `as` array.
    static func strings(_ values: [String]) -> DBusValue { .array(elementSignature: "s", values.map(DBusValue.string)) }

    /// An `a{sv}` dictionary, in the order given.
    static func vardict(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array(elementSignature: "{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// The value's D-Bus type signature, such as `s`, `as` or `a{sv}`.
    var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .variant: "v"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .unsupported: "?"
        }
    }

    var stringValue: String? {
        switch self {
        case .string(let s), .objectPath(let s), .signature(let s): s
        case .variant(let inner): inner.stringValue
        default: nil
        }
    }

    var uint32Value: UInt32? {
        switch self {
        case .uint32(let v): v
        case .variant(let inner): inner.uint32Value
        default: nil
        }
    }

    var boolValue: Bool? {
        switch self {
        case .bool(let v): v
        case .variant(let inner): inner.boolValue
        default: nil
        }
    }

    var stringArray: [String]? {
        guard case .array(_, let items) = self else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.count == items.count ? strings : nil
    }
}

// MARK: - Reading and writing libdbus iterators

extension DBusValue {
    /// Appends `self` to a message being built; `false` when libdbus refused
    /// it (out of memory, or a string it considers invalid).
    func append(to iter: inout DBusMessageIter) -> Bool {
        switch self {
        case .byte(var v): return libdbus.pointee.dbus_message_iter_append_basic(&iter, BDBUS_TYPE_BYTE, &v) != 0
        case .bool(let b):
            var v: dbus_bool_t = b ? 1 : 0
            return libdbus.pointee.dbus_message_iter_append_basic(&iter, BDBUS_TYPE_BOOLEAN, &v) != 0
        case .int16(var v): return libdbus.pointee.dbus_message_iter_append_basic(&iter, BDBUS_TYPE_INT16, &v) != 0
        case .uint16(var v): return libdbus.pointee.dbus_message_iter_append_basic(&iter, BDBUS_TYPE_UINT16, &v) != 0
        case .int32(var v): return libdbus.pointee.dbus_message_iter_append_basic(&iter, BDBUS_TYPE_INT32, &v) != 0
        case .uint32(var v): return libdbus.pointee.dbus_message_iter_append_basic(&iter, BDBUS_TYPE_UINT32, &v) != 0
        case .int64(var v): return libdbus.pointee.dbus_message_iter_append_basic(&iter, BDBUS_TYPE_INT64, &v) != 0
        case .uint64(var v): return libdbus.pointee.dbus_message_iter_append_basic(&iter, BDBUS_TYPE_UINT64, &v) != 0
        case .double(var v): return libdbus.pointee.dbus_message_iter_append_basic(&iter, BDBUS_TYPE_DOUBLE, &v) != 0
        case .string(let s): return Self.appendText(s, type: BDBUS_TYPE_STRING, to: &iter)
        case .objectPath(let s): return Self.appendText(s, type: BDBUS_TYPE_OBJECT_PATH, to: &iter)
        case .signature(let s): return Self.appendText(s, type: BDBUS_TYPE_SIGNATURE, to: &iter)
        case .array(let element, let items):
            return Self.appendContainer(BDBUS_TYPE_ARRAY, signature: element, items, to: &iter)
        case .dictEntry(let key, let value):
            return Self.appendContainer(BDBUS_TYPE_DICT_ENTRY, signature: nil, [key, value], to: &iter)
        case .variant(let inner):
            return Self.appendContainer(BDBUS_TYPE_VARIANT, signature: inner.signature, [inner], to: &iter)
        case .structure(let fields):
            return Self.appendContainer(BDBUS_TYPE_STRUCT, signature: nil, fields, to: &iter)
        case .unsupported:
            return false
        }
    }

    /// D-Bus strings cannot hold NUL; libdbus would cut the text there, so
    /// NULs are dropped before sending.
    private static func appendText(_ text: String, type: Int32, to iter: inout DBusMessageIter) -> Bool {
        let clean = text.contains("\0") ? String(text.unicodeScalars.filter { $0 != "\0" }) : text
        return clean.withCString { pointer in
            var value: UnsafePointer<CChar>? = pointer
            return libdbus.pointee.dbus_message_iter_append_basic(&iter, type, &value) != 0
        }
    }

    private static func appendContainer(_ type: Int32, signature: String?, _ items: [DBusValue], to iter: inout DBusMessageIter) -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { libdbus.pointee.dbus_message_iter_open_container(&iter, type, $0, &sub) } != 0
        } else {
            opened = libdbus.pointee.dbus_message_iter_open_container(&iter, type, nil, &sub) != 0
        }
        guard opened else { return false }
        for item in items where !item.append(to: &sub) {
            libdbus.pointee.dbus_message_iter_abandon_container(&iter, &sub)
            return false
        }
        return libdbus.pointee.dbus_message_iter_close_container(&iter, &sub) != 0
    }

    /// Reads every value from `iter` to the end of its level.
    static func readAll(_ iter: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while true {
            let type = libdbus.pointee.dbus_message_iter_get_arg_type(&iter)
            if type == BDBUS_TYPE_INVALID { break }
            values.append(readOne(&iter, type: type))
            if libdbus.pointee.dbus_message_iter_next(&iter) == 0 { break }
        }
        return values
    }

    /// The arguments of `message` (a `DBusMessage *`).
    static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard libdbus.pointee.dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return readAll(&iter)
    }

    private static func readOne(_ iter: inout DBusMessageIter, type: Int32) -> DBusValue {
        switch type {
        case BDBUS_TYPE_BYTE: return .byte(basic(&iter, UInt8(0)))
        case BDBUS_TYPE_BOOLEAN: return .bool(basic(&iter, dbus_bool_t(0)) != 0)
        case BDBUS_TYPE_INT16: return .int16(basic(&iter, Int16(0)))
        case BDBUS_TYPE_UINT16: return .uint16(basic(&iter, UInt16(0)))
        case BDBUS_TYPE_INT32: return .int32(basic(&iter, Int32(0)))
        case BDBUS_TYPE_UINT32: return .uint32(basic(&iter, UInt32(0)))
        case BDBUS_TYPE_INT64: return .int64(basic(&iter, Int64(0)))
        case BDBUS_TYPE_UINT64: return .uint64(basic(&iter, UInt64(0)))
        case BDBUS_TYPE_DOUBLE: return .double(basic(&iter, Double(0)))
        case BDBUS_TYPE_STRING: return .string(text(&iter))
        case BDBUS_TYPE_OBJECT_PATH: return .objectPath(text(&iter))
        case BDBUS_TYPE_SIGNATURE: return .signature(text(&iter))
        case BDBUS_TYPE_ARRAY:
            var element = ""
            if let signature = libdbus.pointee.dbus_message_iter_get_signature(&iter) {
                element = String(String(cString: signature).dropFirst())
                libdbus.pointee.dbus_free(signature)
            }
            var sub = DBusMessageIter()
            libdbus.pointee.dbus_message_iter_recurse(&iter, &sub)
            return .array(elementSignature: element, readAll(&sub))
        case BDBUS_TYPE_DICT_ENTRY:
            var sub = DBusMessageIter()
            libdbus.pointee.dbus_message_iter_recurse(&iter, &sub)
            let pair = readAll(&sub)
            guard pair.count == 2 else { return .unsupported(typeCode: type) }
            return .dictEntry(pair[0], pair[1])
        case BDBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            libdbus.pointee.dbus_message_iter_recurse(&iter, &sub)
            return .variant(readAll(&sub).first ?? .unsupported(typeCode: BDBUS_TYPE_INVALID))
        case BDBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            libdbus.pointee.dbus_message_iter_recurse(&iter, &sub)
            return .structure(readAll(&sub))
        default:
            return .unsupported(typeCode: type)
        }
    }

    private static func basic<T: BitwiseCopyable>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        libdbus.pointee.dbus_message_iter_get_basic(&iter, &value)
        return value
    }

    private static func text(_ iter: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>?
        libdbus.pointee.dbus_message_iter_get_basic(&iter, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }
}
