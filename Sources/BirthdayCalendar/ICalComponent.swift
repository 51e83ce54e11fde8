import BirthdayCore
import CLibical

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one libical component tree and frees it in `deinit`.
///
/// libical frees a component together with everything added to it, so only
/// the root needs an owner. Code in this folder keeps that true by adding each
/// new property or sub-component to its parent right after creating it (see
/// ``ICalNode``); nothing created here is ever left without a parent. No
/// libical pointer leaves the `ICalendar/` folder.
final class ICalComponent {
    /// The root `icalcomponent *`.
    let pointer: OpaquePointer

    /// A new, empty component of `kind`.
    init(kind: icalcomponent_kind) throws(ExportError) {
        try Self.loadLibical()
        guard let pointer = libical.pointee.icalcomponent_new(kind) else {
            throw ExportError(.libical(what: "a \(ICalComponent.name(of: kind)) component"))
        }
        self.pointer = pointer
    }

    /// Parses iCalendar text with libical's parser.
    ///
    /// libical is lenient: what it cannot read becomes `X-LIC-ERROR`
    /// properties inside the tree (see ``errorCount``) rather than a failure.
    init(parsing text: String) throws(ExportError) {
        try Self.loadLibical()
        guard let pointer = text.withCString({ libical.pointee.icalparser_parse_string($0) }) else {
            throw ExportError(.unparsable)
        }
        self.pointer = pointer
    }

    /// Makes sure libical is loaded (once per process; see CLibical.h) before
    /// anything reads ``libical``.
    static func loadLibical() throws(ExportError) {
        if case .failure(let error) = loadedLibical { throw error }
    }

    deinit {
        libical.pointee.icalcomponent_free(pointer)
    }

    /// The root as a node to add children to. Valid only while `self` is alive.
    var root: ICalNode { ICalNode(pointer: pointer) }

    /// The whole tree as iCalendar text, lines ending in CRLF and folded at
    /// 75 octets, exactly as libical writes it.
    func serialized() throws(ExportError) -> String {
        guard let text = libical.pointee.icalcomponent_as_ical_string_r(pointer) else {
            throw ExportError(.libical(what: "the iCalendar text"))
        }
        defer { libical.pointee.icalmemory_free_buffer(text) }
        return String(cString: text)
    }

    /// Appends the same text as ``serialized()`` to `bytes` as UTF-8, with no
    /// `String` in between.
    func appendSerialized(to bytes: inout [UInt8]) throws(ExportError) {
        guard let text = libical.pointee.icalcomponent_as_ical_string_r(pointer) else {
            throw ExportError(.libical(what: "the iCalendar text"))
        }
        defer { libical.pointee.icalmemory_free_buffer(text) }
        let count = strlen(text)
        text.withMemoryRebound(to: UInt8.self, capacity: count) { bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// How many `X-LIC-ERROR` properties libical put into the tree (parse and
    /// restriction errors).
    var errorCount: Int { Int(libical.pointee.icalcomponent_count_errors(pointer)) }

    /// The texts of all `X-LIC-ERROR` properties in the tree, depth first.
    var errorMessages: [String] {
        var messages: [String] = []
        func collect(_ component: OpaquePointer) {
            var property = libical.pointee.icalcomponent_get_first_property(component, ICAL_XLICERROR_PROPERTY)
            while let current = property {
                if let text = libical.pointee.icalproperty_get_xlicerror(current) { messages.append(String(cString: text)) }
                property = libical.pointee.icalcomponent_get_next_property(component, ICAL_XLICERROR_PROPERTY)
            }
            var child = libical.pointee.icalcomponent_get_first_component(component, ICAL_ANY_COMPONENT)
            while let current = child {
                collect(current)
                child = libical.pointee.icalcomponent_get_next_component(component, ICAL_ANY_COMPONENT)
            }
        }
        collect(pointer)
        return messages
    }

    /// Runs libical's `icalrestriction_check` on a `VCALENDAR`.
    ///
    /// Without a `METHOD` property libical checks the RFC 5545 property
    /// counts of the calendar and its components (one `VERSION` and `PRODID`,
    /// at most one `DTSTART`, `SUMMARY`, … per event, not both `DTEND` and
    /// `DURATION`); with `METHOD` it checks the iTIP rules of RFC 5546 for that
    /// method. Failures are added to the tree as `X-LIC-ERROR` properties.
    /// - Returns: whether the check passed.
    func passesRestrictionCheck() -> Bool {
        libical.pointee.icalrestriction_check(pointer) != 0
    }

    private static func name(of kind: icalcomponent_kind) -> String {
        guard let text = libical.pointee.icalcomponent_kind_to_string(kind) else { return "libical" }
        return String(cString: text)
    }
}

/// A component inside a tree that an ``ICalComponent`` owns. It does not own
/// its pointer and must not outlive the owner.
struct ICalNode {
    let pointer: OpaquePointer

    /// Adds a property that `make` creates; `what` names it in the error.
    ///
    /// - Returns: the property, for adding parameters; valid while the tree lives.
    @discardableResult
    func add(_ what: String, _ make: () -> OpaquePointer?) throws(ExportError) -> OpaquePointer {
        guard let property = make() else { throw ExportError(.libical(what: what)) }
        libical.pointee.icalcomponent_add_property(pointer, property)
        return property
    }

    /// Adds a text-valued property made by `make` from `text`.
    func add(_ what: String, text: String, _ make: (UnsafePointer<CChar>) -> OpaquePointer?) throws(ExportError) {
        try add(what) { text.withCString(make) }
    }

    /// Adds an extension property `name:value` (`X-…`).
    ///
    /// libical 3.0 writes extension values with only backslashes escaped, not
    /// commas or semicolons; values written here are digits or a calendar name.
    func addExtension(_ name: String, value: String) throws(ExportError) {
        let property = try add(name) { value.withCString { libical.pointee.icalproperty_new_x($0) } }
        name.withCString { libical.pointee.icalproperty_set_x_name(property, $0) }
    }

    /// Adds `parameter` (made by `make`) to `property`.
    static func addParameter(to property: OpaquePointer, _ what: String, _ make: () -> OpaquePointer?) throws(ExportError) {
        guard let parameter = make() else { throw ExportError(.libical(what: what)) }
        libical.pointee.icalproperty_add_parameter(property, parameter)
    }
}

/// libical's functions, loaded at the first export rather than linked (see
/// CLibical.h): `birthdays run` without the feed server never maps libical or
/// the ICU libraries it needs.
private let loadedLibical: Result<LibicalTable, ExportError> = {
    var failure: UnsafePointer<CChar>?
    guard let table = clibical_load(&failure) else {
        return .failure(ExportError(.libicalMissing(failure.map { String(cString: $0) } ?? "unknown error")))
    }
    return .success(LibicalTable(functions: table))
}()

/// The loader's table of function pointers: written once inside the
/// loader's `pthread_once`, read-only after, so it may be shared.
private struct LibicalTable: @unchecked Sendable {
    let functions: UnsafePointer<clibical_functions>
}

/// The function table. Every way into the exporter and the reader calls
/// ``ICalComponent/loadLibical()`` first, which throws when libical is
/// missing; reaching this without that check is a programming error.
var libical: UnsafePointer<clibical_functions> {
    switch loadedLibical {
    case .success(let table): table.functions
    case .failure(let error): preconditionFailure("libical is missing and ICalComponent.loadLibical() was not checked: \(error)")
    }
}
