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

    var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
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

/// Reads WebDAV XML with libxml2's streaming reader, namespace-aware:
/// elements are matched by (namespace, local name), never by prefix or by
/// searching the text. libxml2 is loaded at the first parse (see CLibXML2.h).
enum WebDAVXML {
    /// Why a body could not be read as WebDAV XML.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
    }

    private static func functions() throws(Failure) -> UnsafePointer<clibxml2_functions> {
        var failure: UnsafePointer<CChar>?
        guard let functions = clibxml2_load(&failure) else {
            let reason = failure.map { String(cString: $0) } ?? "unknown error"
            throw Failure(description: "libxml2 is needed to read CardDAV answers (apt install libxml2): \(reason)")
        }
        return functions
    }

    /// The events of a document, in order: element starts with their depth (the
    /// root is 0), text, element ends. Empty elements give a start and an end.
    private enum Event {
        case start(XMLName, depth: Int)
        case text(String)
        case end(XMLName, depth: Int)
    }

    private static func read(_ data: Data, _ handle: (Event) throws(Failure) -> Void) throws(Failure) {
        let table = try functions()
        let functions = table.pointee
        guard !data.isEmpty else { throw Failure(description: "the body is empty") }
        guard data.count < Int(Int32.max) else { throw Failure(description: "the body is too large") }
        // withUnsafeBytes rethrows untyped errors: the failure comes out as a value.
        let failure = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Failure? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self),
                let reader = clibxml2_reader_open(table, base, Int32(raw.count))
            else { return Failure(description: "libxml2 could not start reading") }
            defer { functions.xmlFreeTextReader(reader) }
            do throws(Failure) {
                try events(reader, functions, handle)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    private static func events(
        _ reader: OpaquePointer,
        _ functions: clibxml2_functions,
        _ handle: (Event) throws(Failure) -> Void
    ) throws(Failure) {
        var open: [XMLName] = []
        while true {
            let status = functions.xmlTextReaderRead(reader)
            if status == 0 { break }
            if status < 0 {
                let line = functions.xmlTextReaderGetParserLineNumber(reader)
                throw Failure(description: "the XML is not well-formed (line \(line))")
            }
            switch Int(functions.xmlTextReaderNodeType(reader)) {
            case Int(CLIBXML2_ELEMENT):
                let name = XMLName(
                    namespace: string(functions.xmlTextReaderConstNamespaceUri(reader)),
                    local: string(functions.xmlTextReaderConstLocalName(reader))
                )
                try handle(.start(name, depth: open.count))
                if functions.xmlTextReaderIsEmptyElement(reader) == 1 {
                    try handle(.end(name, depth: open.count))
                } else {
                    open.append(name)
                }
            case Int(CLIBXML2_END_ELEMENT):
                guard let name = open.popLast() else { throw Failure(description: "the XML is not well-formed") }
                try handle(.end(name, depth: open.count))
            case Int(CLIBXML2_TEXT), Int(CLIBXML2_CDATA), Int(CLIBXML2_SIGNIFICANT_WHITESPACE):
                try handle(.text(string(functions.xmlTextReaderConstValue(reader))))
            default:
                break
            }
        }
        guard open.isEmpty else { throw Failure(description: "the XML ends early") }
    }

    private static func string(_ pointer: UnsafePointer<clibxml2_char>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }

    /// Parses a `DAV:multistatus` document.
    ///
    /// - Throws: ``Failure`` when the XML is not well-formed or its root is not a multistatus.
    static func multistatus(_ data: Data) throws(Failure) -> Multistatus {
        var result = Multistatus()
        var response: DAVResponse?
        var propstat: (status: Int?, properties: [DAVProperty])?
        var property: DAVProperty?
        var text = ""
        var sawRoot = false
        try read(data) { event throws(Failure) in
            switch event {
            case .start(let name, let depth):
                text = ""
                switch depth {
                case 0:
                    guard name == .dav("multistatus") else { throw Failure(description: "expected a DAV: multistatus, found \(name)") }
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
                    result.syncToken = text.trimmingCharacters(in: .whitespacesAndNewlines)
                case 1 where name == .dav("response"):
                    if let response { result.responses.append(response) }
                    response = nil
                case 2 where name == .dav("href"):
                    if response?.href.isEmpty == true { response?.href = text.trimmingCharacters(in: .whitespacesAndNewlines) }
                case 2 where name == .dav("status"):
                    response?.status = statusCode(text)
                case 2 where name == .dav("propstat"):
                    if let found = propstat, found.status == 200 {
                        for item in found.properties { response?.properties[item.name] = item }
                    }
                    propstat = nil
                case 3 where name == .dav("status"):
                    propstat?.status = statusCode(text)
                case 4:
                    if var finished = property {
                        if finished.children.isEmpty { finished.text = text }
                        propstat?.properties.append(finished)
                    }
                    property = nil
                case 5... where name == .dav("href"):
                    property?.hrefs.append(text.trimmingCharacters(in: .whitespacesAndNewlines))
                default:
                    break
                }
            }
        }
        guard sawRoot else { throw Failure(description: "the body holds no XML element") }
        return result
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
