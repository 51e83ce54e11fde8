import BirthdayCore
internal import CLibXML2
import Foundation

/// An XML element name with its namespace, as WebDAV means it
/// (`DAV:` `href`, `urn:ietf:params:xml:ns:carddav` `address-data`):
/// prefixes are the sender's choice and never compared.
struct XMLName: Hashable, Sendable, CustomStringConvertible {
    var namespace: String
    var local: String

    static let dav = "DAV:"
    static let cardDAV = "urn:ietf:params:xml:ns:carddav"
    static let calendarServer = "http://calendarserver.org/ns/"
    static let calDAV = "urn:ietf:params:xml:ns:caldav"

    static func dav(_ local: String) -> XMLName { XMLName(namespace: dav, local: local) }
    static func cardDAV(_ local: String) -> XMLName { XMLName(namespace: cardDAV, local: local) }

    static let addressBook = cardDAV("addressbook")
    static let addressData = cardDAV("address-data")
    static let addressBookHomeSet = cardDAV("addressbook-home-set")
    static let getETag = dav("getetag")
    static let getCTag = XMLName(namespace: calendarServer, local: "getctag")
    static let syncToken = dav("sync-token")
    static let displayName = dav("displayname")
    static let resourceType = dav("resourcetype")
    static let currentUserPrincipal = dav("current-user-principal")
    static let principalURL = dav("principal-URL")
    static let calendar = XMLName(namespace: calDAV, local: "calendar")
    static let calendarHomeSet = XMLName(namespace: calDAV, local: "calendar-home-set")

    var description: String { "{\(namespace)}\(local)" }
}

/// One property of a `<prop>`, reduced to what CardDAV needs: its text,
/// the `DAV:href`s inside it (principals, home sets) and the names of its
/// child elements (`resourcetype`'s `addressbook`, `collection`).
struct DAVProperty: Sendable, Equatable {
    var name: XMLName
    var text = ""
    var hrefs: [String] = []
    var children: [XMLName] = []

    var trimmedText: String { WebDAVXML.trimmed(text) }
}

/// One `<response>` of a multistatus.
struct DAVResponse: Sendable, Equatable {
    var href = ""
    /// The response's own `<status>` (404 for a member deleted since a sync token), if any.
    var status: Int?
    /// Properties found with status 200, by name. Properties the server does
    /// not know come back in a propstat of their own with 404 and are left out.
    var properties: [XMLName: DAVProperty] = [:]

    func text(_ name: XMLName) -> String? { properties[name].map(\.trimmedText) }
}

/// A parsed `207 Multi-Status` body (RFC 4918 §13, RFC 6578 §6.4).
struct Multistatus: Sendable, Equatable {
    var syncToken: String?
    var responses: [DAVResponse] = []
}

/// Reads WebDAV XML with libxml2's push parser, namespace-aware: elements
/// are matched by (namespace, local name), never by prefix or by searching
/// the text. A body is read whole (``multistatus(_:)``) or piece by piece as
/// it arrives (``MultistatusStream``), by the same code. libxml2 is loaded at
/// the first parse (see CLibXML2.h).
enum WebDAVXML {
    /// Why a body could not be read as WebDAV XML.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
    }

    fileprivate static func functions() throws(Failure) -> UnsafePointer<clibxml2_functions> {
        var failure: UnsafePointer<CChar>?
        guard let functions = clibxml2_load(&failure) else {
            let reason = failure.map { String(cString: $0) } ?? "unknown error"
            throw Failure(description: "libxml2 is needed to read CardDAV answers (apt install libxml2): \(reason)")
        }
        return functions
    }

    /// The events of a document, in order: element starts with their depth (the
    /// root is 0), text, element ends. Empty elements give a start and an end.
    enum Event {
        case start(XMLName, depth: Int)
        case text(String)
        case end(XMLName, depth: Int)
    }

    private static func read(_ data: Data, _ handle: @escaping (Event) throws(Failure) -> Void) throws(Failure) {
        guard !data.isEmpty else { throw Failure(description: "the body is empty") }
        guard data.count < Int(Int32.max) else { throw Failure(description: "the body is too large") }
        let reader = try PushReader(handle)
        // withUnsafeBytes rethrows untyped errors: the failure comes out as a value.
        let failure = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Failure? in
            do throws(Failure) {
                try reader.feed(raw)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        try reader.finish()
    }

    /// Parses a `DAV:multistatus` document.
    ///
    /// - Throws: ``Failure`` when the XML is not well-formed or its root is not a multistatus.
    static func multistatus(_ data: Data) throws(Failure) -> Multistatus {
        let builder = MultistatusBuilder()
        var responses: [DAVResponse] = []
        builder.each = { responses.append($0) }
        try read(data) { event throws(Failure) in try builder.handle(event) }
        guard builder.sawRoot else { throw Failure(description: "the body holds no XML element") }
        return Multistatus(syncToken: builder.syncToken, responses: responses)
    }

    /// The condition names of a `DAV:error` body (RFC 4918 §16), such as
    /// `valid-sync-token`; empty when the body is not one.
    static func errorConditions(_ data: Data) -> [XMLName] {
        var conditions: [XMLName] = []
        var isError = false
        try? read(data) { event in
            if case .start(let name, let depth) = event {
                if depth == 0 { isError = name == .dav("error") }
                if depth == 1 && isError { conditions.append(name) }
            }
        }
        return conditions
    }

    /// `text` without the white space around it, as `trimmingCharacters(in:
    /// .whitespacesAndNewlines)` returns it. Hrefs, tags and statuses are
    /// ASCII: their white space is found on the bytes, without Foundation's
    /// NSString bridge (one call per element of a multistatus); text that
    /// begins or ends with a non-ASCII byte goes to Foundation.
    static func trimmed(_ text: String) -> String {
        let bytes = text.utf8
        guard let first = bytes.first, let last = bytes.last else { return text }
        guard first < 0x80, last < 0x80 else { return text.trimmingCharacters(in: .whitespacesAndNewlines) }
        // Tab, line feed, vertical tab, form feed, carriage return and space.
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard isSpace(first) || isSpace(last) else { return text }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isSpace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        guard start < end else { return "" }
        // Trimmed to ASCII white space only: a non-ASCII character now at an edge may be white space too.
        if bytes[start] >= 0x80 || bytes[bytes.index(before: end)] >= 0x80 {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return String(text[start..<end])
    }

    /// 200 from `HTTP/1.1 200 OK`.
    static func statusCode(_ line: String) -> Int? {
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    /// `text` with `&`, `<` and `>` escaped, for element content.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// The state machine of a multistatus (RFC 4918 §13, RFC 6578 §6.4): fed the
/// document's events, it hands each `<response>` to ``each`` as soon as the
/// element closes, and keeps the `sync-token`.
final class MultistatusBuilder {
    var each: (DAVResponse) -> Void = { _ in }
    private(set) var syncToken: String?
    private(set) var sawRoot = false
    private var response: DAVResponse?
    private var propstat: (status: Int?, properties: [DAVProperty])?
    private var property: DAVProperty?
    private var text = ""

    func handle(_ event: WebDAVXML.Event) throws(WebDAVXML.Failure) {
        switch event {
        case .start(let name, let depth):
            text = ""
            switch depth {
            case 0:
                guard name == .dav("multistatus") else { throw WebDAVXML.Failure(description: "expected a DAV: multistatus, found \(name)") }
                sawRoot = true
            case 1 where name == .dav("response"): response = DAVResponse()
            case 2 where name == .dav("propstat") && response != nil: propstat = (nil, [])
            case 4 where propstat != nil: property = DAVProperty(name: name)
            case 5 where property != nil: property?.children.append(name)
            default: break
            }
        case .text(let value):
            text += value
        case .end(let name, let depth):
            defer { text = "" }
            switch depth {
            case 1 where name == .syncToken:
                syncToken = WebDAVXML.trimmed(text)
            case 1 where name == .dav("response"):
                if let response { each(response) }
                response = nil
            case 2 where name == .dav("href"):
                if response?.href.isEmpty == true { response?.href = WebDAVXML.trimmed(text) }
            case 2 where name == .dav("status"):
                response?.status = WebDAVXML.statusCode(text)
            case 2 where name == .dav("propstat"):
                if let found = propstat, found.status == 200 {
                    for item in found.properties { response?.properties[item.name] = item }
                }
                propstat = nil
            case 3 where name == .dav("status"):
                propstat?.status = WebDAVXML.statusCode(text)
            case 4:
                if var finished = property {
                    if finished.children.isEmpty { finished.text = text }
                    propstat?.properties.append(finished)
                }
                property = nil
            case 5... where name == .dav("href"):
                property?.hrefs.append(WebDAVXML.trimmed(text))
            default:
                break
            }
        }
    }
}

/// A multistatus read piece by piece as its body arrives (``feed(_:)``), each
/// `<response>` handed on as soon as it closes; ``finish()`` after the last
/// piece. Nothing of the body is kept but the element being read.
///
/// Used by one task at a time (the one reading the answer), hence
/// `@unchecked Sendable`: it crosses into that task, never shared.
final class MultistatusStream: @unchecked Sendable {
    private let builder = MultistatusBuilder()
    private let reader: PushReader
    private var fed = 0

    /// - Parameter each: called with each `<response>`, in document order.
    init(each: @escaping (DAVResponse) -> Void) throws(WebDAVXML.Failure) {
        let builder = self.builder
        builder.each = each
        reader = try PushReader { event throws(WebDAVXML.Failure) in try builder.handle(event) }
    }

    /// The multistatus's `sync-token`, once finished.
    var syncToken: String? { builder.syncToken }

    func feed(_ bytes: UnsafeRawBufferPointer) throws(WebDAVXML.Failure) {
        fed += bytes.count
        try reader.feed(bytes)
    }

    /// Ends the document: throws when it ended early or was no multistatus.
    func finish() throws(WebDAVXML.Failure) {
        guard fed > 0 else { throw WebDAVXML.Failure(description: "the body is empty") }
        try reader.finish()
        guard builder.sawRoot else { throw WebDAVXML.Failure(description: "the body holds no XML element") }
    }
}

/// libxml2's push parser (SAX2, namespace-aware) turned into
/// ``WebDAVXML/Event``s: text is gathered into one event per run between
/// tags. The handler's first error stops the parser and is thrown by the
/// `feed` or `finish` that caused it. Never loads a DTD or an external
/// entity, never touches the network (see CLibXML2.h).
final class PushReader {
    private let functions: clibxml2_functions
    private let events: UnsafeMutablePointer<clibxml2_push_events>
    private var parser: OpaquePointer?
    private let handle: (WebDAVXML.Event) throws(WebDAVXML.Failure) -> Void
    private var open: [XMLName] = []
    private var pending: [UInt8] = []
    private var failure: WebDAVXML.Failure?
    private var finished = false
    /// libxml2 keeps names in a dictionary: the same pointer comes again for the same name.
    private var names: [UnsafeRawPointer: String] = [:]

    init(_ handle: @escaping (WebDAVXML.Event) throws(WebDAVXML.Failure) -> Void) throws(WebDAVXML.Failure) {
        let table = try WebDAVXML.functions()
        functions = table.pointee
        self.handle = handle
        events = .allocate(capacity: 1)
        events.initialize(
            to: clibxml2_push_events(
                context: nil,
                start: { context, name, uri in
                    guard let context else { return }
                    Unmanaged<PushReader>.fromOpaque(context).takeUnretainedValue().started(name, uri)
                },
                end: { context, name, uri in
                    guard let context else { return }
                    Unmanaged<PushReader>.fromOpaque(context).takeUnretainedValue().ended(name, uri)
                },
                text: { context, bytes, size in
                    guard let context, size > 0 else { return }
                    let reader = Unmanaged<PushReader>.fromOpaque(context).takeUnretainedValue()
                    reader.pending.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(size)))
                }
            )
        )
        events.pointee.context = Unmanaged.passUnretained(self).toOpaque()
        parser = clibxml2_push_open(table, events)
        // deinit frees `events`.
        guard parser != nil else { throw WebDAVXML.Failure(description: "libxml2 could not start reading") }
    }

    deinit {
        if let parser { functions.xmlFreeParserCtxt(parser) }
        events.deallocate()
    }

    /// Parses the next piece of the document.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(WebDAVXML.Failure) {
        var offset = 0
        // xmlParseChunk takes an Int32 size.
        repeat {
            let size = min(bytes.count - offset, 1 << 30)
            let base = bytes.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) + offset }
            try parse(base, size, terminate: false)
            offset += size
        } while offset < bytes.count
    }

    /// Ends the document.
    func finish() throws(WebDAVXML.Failure) {
        guard !finished else { return }
        finished = true
        try parse(nil, 0, terminate: true)
        guard open.isEmpty else { throw WebDAVXML.Failure(description: "the XML ends early") }
    }

    private func parse(_ base: UnsafePointer<CChar>?, _ size: Int, terminate: Bool) throws(WebDAVXML.Failure) {
        guard let parser else { return }
        if let failure { throw failure }
        let status = functions.xmlParseChunk(parser, base, Int32(size), terminate ? 1 : 0)
        if let failure { throw failure }
        if status != 0 {
            let line = functions.xmlSAX2GetLineNumber(UnsafeMutableRawPointer(parser))
            throw WebDAVXML.Failure(description: "the XML is not well-formed (line \(line))")
        }
    }

    private func name(_ pointer: UnsafePointer<clibxml2_char>?) -> String {
        guard let pointer else { return "" }
        let key = UnsafeRawPointer(pointer)
        if let known = names[key] { return known }
        let text = String(cString: pointer)
        names[key] = text
        return text
    }

    private func flushText() {
        guard !pending.isEmpty else { return }
        let text = String(decoding: pending, as: UTF8.self)
        pending.removeAll(keepingCapacity: true)
        deliver(.text(text))
    }

    private func started(_ local: UnsafePointer<clibxml2_char>, _ uri: UnsafePointer<clibxml2_char>?) {
        flushText()
        let element = XMLName(namespace: name(uri), local: name(local))
        deliver(.start(element, depth: open.count))
        open.append(element)
    }

    private func ended(_ local: UnsafePointer<clibxml2_char>, _ uri: UnsafePointer<clibxml2_char>?) {
        flushText()
        guard let element = open.popLast() else {
            fail(WebDAVXML.Failure(description: "the XML is not well-formed"))
            return
        }
        deliver(.end(element, depth: open.count))
    }

    private func deliver(_ event: WebDAVXML.Event) {
        guard failure == nil else { return }
        do throws(WebDAVXML.Failure) {
            try handle(event)
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: WebDAVXML.Failure) {
        guard failure == nil else { return }
        failure = error
        if let parser { functions.xmlStopParser(parser) }
    }
}
