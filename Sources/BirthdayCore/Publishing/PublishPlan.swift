import Foundation

/// A CalDAV calendar that `birthdays publish` writes the birthday calendar
/// into (issue 21). The password is never here, only the command that prints it.
public struct PublishTarget: Sendable, Equatable, Codable {
    public var id: Int64
    public var name: String
    /// The URL as the user gave it (a server, an account or a calendar).
    public var url: String
    /// The calendar collection the events go to, ending with `/`.
    public var calendarURL: String
    public var username: String?
    public var passwordCommand: String?
    /// Whether `publish add` made the calendar (MKCALENDAR); only then may `remove --delete-calendar` delete it.
    public var createdCalendar: Bool
    public var lastPublish: Date?
    public var lastAttempt: Date?
    /// The last failure as one sentence; `nil` after a success.
    public var lastError: String?
    /// How many events the calendar holds from us.
    public var events: Int
    /// ``PublishPlan/calendarHash(_:)`` of the events at the last successful publish.
    public var eventsHash: String?
    /// Failed publishes in a row (0 after a success).
    public var failures: Int
    /// When the running daemon publishes again after a failure; `nil` when none is planned.
    public var nextAttempt: Date?
    /// Events of the feed the last publish did not write because their
    /// address holds a resource birthdays did not write (``PublishReport/foreign``).
    public var leftAlone: Int
    /// The calendar's sync-token ([RFC 6578](https://www.rfc-editor.org/rfc/rfc6578)) from
    /// the listing of the last publish: the next one asks only for what changed since.
    public var syncToken: String?
    /// Whether the server refused `sync-collection`: every publish then lists
    /// every member's ETag (`PROPFIND` Depth 1), as `publish list` says.
    public var syncRefused: Bool

    public init(
        id: Int64 = 0,
        name: String,
        url: String,
        calendarURL: String,
        username: String? = nil,
        passwordCommand: String? = nil,
        createdCalendar: Bool = false,
        lastPublish: Date? = nil,
        lastAttempt: Date? = nil,
        lastError: String? = nil,
        events: Int = 0,
        eventsHash: String? = nil,
        failures: Int = 0,
        nextAttempt: Date? = nil,
        leftAlone: Int = 0,
        syncToken: String? = nil,
        syncRefused: Bool = false
    ) {
        self.id = id
        self.name = name
        self.url = url
        self.calendarURL = calendarURL
        self.username = username
        self.passwordCommand = passwordCommand
        self.createdCalendar = createdCalendar
        self.lastPublish = lastPublish
        self.lastAttempt = lastAttempt
        self.lastError = lastError
        self.events = events
        self.eventsHash = eventsHash
        self.failures = failures
        self.nextAttempt = nextAttempt
        self.leftAlone = leftAlone
        self.syncToken = syncToken
        self.syncRefused = syncRefused
    }
}

/// One event as we want it in the calendar: its UID, the resource's bytes and their hash.
public struct PublishEvent: Sendable, Equatable {
    public var uid: String
    public var bytes: [UInt8]
    /// ``PublishPlan/hash(_:)`` of the bytes.
    public var hash: String

    public init(uid: String, bytes: [UInt8]) {
        self.uid = uid
        self.bytes = bytes
        self.hash = PublishPlan.hash(bytes)
    }
}

/// A resource we wrote: where, with which entity tag, and the hash of what
/// we wrote. A hash of ``PublishedEvent/pending`` marks a resource we were
/// about to create: recorded before the PUT, so a publish interrupted
/// between the PUT and its record knows the resource there is its own.
public struct PublishedEvent: Sendable, Equatable, Codable {
    public var uid: String
    /// The resource's path on the server (percent-encoded), as we wrote it.
    public var href: String
    public var etag: String?
    public var hash: String

    /// The ``hash`` of a resource about to be created.
    public static let pending = "pending"

    public init(uid: String, href: String, etag: String?, hash: String) {
        self.uid = uid
        self.href = href
        self.etag = etag
        self.hash = hash
    }
}

/// What one publish sends: PUTs of new events (`If-None-Match: *`) and of
/// changed ones (`If-Match` with the tag we know), a look at what sits at an
/// address we do not know as ours (``Condition/check``), DELETEs of the
/// resources we wrote whose events are no longer wanted (`If-Match`), and
/// the records of resources the listing shows gone. Pure: the helper sends
/// it, and decides a ``Condition/check`` with ``writtenByUs(_:uid:productID:)``;
/// resources we did not write are never changed or deleted.
public struct PublishPlan: Sendable, Equatable {
    /// How a PUT is sent.
    public enum Condition: Sendable, Equatable {
        /// `If-None-Match: *`: nothing is there (never listed, or listed gone).
        case create
        /// `If-Match` with the tag we know (`nil`: the server never gave one).
        case update(etag: String?)
        /// Something is there that we do not know as we wrote it (not
        /// recorded, or its tag is not ours): fetched first, then adopted
        /// (ours and the same: its tag is kept), written with `If-Match` of
        /// its tag (ours but different) or left alone (not ours).
        case check
    }

    public struct Put: Sendable, Equatable {
        public var uid: String
        public var href: String
        public var condition: Condition

        public init(uid: String, href: String, condition: Condition) {
            self.uid = uid
            self.href = href
            self.condition = condition
        }
    }

    public struct Delete: Sendable, Equatable {
        public var uid: String
        public var href: String
        /// `nil`: a create we recorded but never saw answered; fetched first, and deleted only when ours.
        public var etag: String?

        public init(uid: String, href: String, etag: String?) {
            self.uid = uid
            self.href = href
            self.etag = etag
        }
    }

    public var puts: [Put] = []
    public var deletes: [Delete] = []
    /// UIDs of ours no longer wanted that the listing shows gone: forgotten without a request.
    public var forgets: [String] = []
    public var unchanged = 0

    /// - Parameters:
    ///   - wanted: the hash of every event we want, by UID.
    ///   - published: what we wrote before, by UID.
    ///   - calendarPath: the calendar collection's path (percent-encoded, ending with `/`): new resources go there.
    ///   - listing: the entity tag of every member of the calendar, by decoded path (``decodedPath(_:)``);
    ///     `nil` when the server does not list them (then the records alone decide, and a 412 tells the rest).
    public init(wanted: [String: String], published: [String: PublishedEvent], calendarPath: String, listing: [String: String]? = nil) {
        for uid in wanted.keys.sorted() {
            guard let hash = wanted[uid] else { continue }
            if let old = published[uid] {
                let pending = old.hash == PublishedEvent.pending
                guard let listing else {
                    if pending {
                        puts.append(Put(uid: uid, href: old.href, condition: .create))
                    } else if old.hash == hash {
                        unchanged += 1
                    } else {
                        puts.append(Put(uid: uid, href: old.href, condition: .update(etag: old.etag)))
                    }
                    continue
                }
                switch listing[Self.decodedPath(old.href)] {
                case nil:
                    // Gone (someone emptied the calendar): made again directly.
                    puts.append(Put(uid: uid, href: old.href, condition: .create))
                case let tag? where tag == old.etag && !pending:
                    if old.hash == hash {
                        unchanged += 1
                    } else {
                        puts.append(Put(uid: uid, href: old.href, condition: .update(etag: old.etag)))
                    }
                default:
                    // Changed by another client, or a create never seen answered.
                    puts.append(Put(uid: uid, href: old.href, condition: .check))
                }
            } else {
                let href = Self.href(uid: uid, in: calendarPath)
                let taken = listing?[Self.decodedPath(href)] != nil
                puts.append(Put(uid: uid, href: href, condition: taken ? .check : .create))
            }
        }
        for uid in published.keys.sorted() where wanted[uid] == nil {
            guard let old = published[uid] else { continue }
            if let listing, listing[Self.decodedPath(old.href)] == nil {
                forgets.append(uid)
            } else {
                deletes.append(Delete(uid: uid, href: old.href, etag: old.hash == PublishedEvent.pending ? nil : old.etag))
            }
        }
    }

    /// The listing a `sync-collection` answer since the last publish's token
    /// makes (RFC 6578), in the form ``init(wanted:published:calendarPath:listing:)``
    /// takes: every resource we recorded, with the tag we recorded, then what
    /// changed since the token: `changed` paths with their new tags (ours
    /// among them, with the tag we recorded: unchanged), `removed` paths gone.
    /// A resource we recorded without a tag (a create never seen answered, or a
    /// server that gave none) is listed with an empty tag, so it is fetched
    /// (``Condition/check``) rather than taken as gone or as ours. Resources of
    /// others that did not change since the token are not listed: a PUT to such
    /// an address is `If-None-Match: *`, and the server's 412 leads to the same
    /// check a full listing would have.
    ///
    /// - Parameters:
    ///   - changed: tags by decoded path (``decodedPath(_:)``); an empty tag for a member listed without one.
    ///   - removed: decoded paths the server reports gone (404).
    public static func listing(published: [String: PublishedEvent], changed: [String: String], removed: Set<String>) -> [String: String] {
        var listing: [String: String] = [:]
        for event in published.values {
            listing[decodedPath(event.href)] = event.hash == PublishedEvent.pending ? "" : (event.etag ?? "")
        }
        for path in removed { listing[path] = nil }
        for (path, tag) in changed { listing[path] = tag }
        return listing
    }

    /// Whether the calendar's changes since the listing's sync-token, asked
    /// again after a publish wrote, are all its own: then the token they end
    /// with is kept, and the next publish asks only for what changed after it.
    /// Otherwise (another client changed or deleted one of ours meanwhile, or
    /// something we wrote is not listed as changed, as when another client
    /// deleted it again, which a server need not report) no token is kept, and
    /// the next publish lists every member.
    ///
    /// - Parameters:
    ///   - changed: tags by decoded path, as the server reports them since the listing's token.
    ///   - removed: decoded paths the server reports gone since then.
    ///   - expected: the tag we know for each resource recorded as ours now, by decoded path (`nil`: none known).
    ///   - wrote: decoded paths this publish wrote.
    public static func changesAreOurs(changed: [String: String], removed: Set<String>, expected: [String: String?], wrote: Set<String>) -> Bool {
        for (path, tag) in changed {
            guard let known = expected[path] else { continue }  // not ours
            guard let known, known == tag else { return false }
        }
        for path in removed where expected.keys.contains(path) {
            return false
        }
        return wrote.allSatisfy { changed[$0] != nil }
    }

    /// A path with its percent-encoding undone: how listings and records are compared.
    public static func decodedPath(_ path: String) -> String {
        // Most paths have nothing encoded; Foundation's decoding costs a CFString round trip each.
        guard path.utf8.contains(UInt8(ascii: "%")) else { return path }
        return path.removingPercentEncoding ?? path
    }

    /// The name of the resource at `href` (its last path segment, as sent):
    /// how a report names an event, never by the person's name.
    public static func resourceName(href: String) -> String {
        href.split(separator: "/").last.map(String.init) ?? href
    }

    /// Whether `theirs`, a resource's text on the server, is one this program
    /// wrote for the event `uid`: the `PRODID` of its calendar is ours
    /// (`productID`) and every `VEVENT` in it has that UID. Only such a
    /// resource is adopted at an address we have no record of writing;
    /// anything else (another client's event, the feed imported by a client,
    /// which writes its own `PRODID`) is never touched.
    public static func writtenByUs(_ theirs: String, uid: String, productID: String) -> Bool {
        var stack: [String] = []
        var product: String?
        var uids: [String] = []
        for line in unfolded(theirs) {
            let name = line.prefix { $0 != ":" && $0 != ";" }.uppercased()
            let value = line.firstIndex(of: ":").map { String(line[line.index(after: $0)...]) } ?? ""
            switch name {
            case "BEGIN": stack.append(value.uppercased())
            case "END": _ = stack.popLast()
            case "PRODID" where stack == ["VCALENDAR"]: product = value
            case "UID" where stack == ["VCALENDAR", "VEVENT"]: uids.append(value)
            default: break
            }
        }
        return product == productID && !uids.isEmpty && uids.allSatisfy { $0 == uid }
    }

    public init() {}

    /// Whether deleting `deleting` of the `published` events needs `--force`:
    /// more than half of 10 or more, as the sources' guard (``MassRemoval``).
    public static func needsForce(deleting: Int, of published: Int) -> Bool {
        published >= 10 && deleting * 2 > published
    }

    /// The resource of `uid`: `UID.ics` in the calendar, with every byte a
    /// path segment cannot hold percent-encoded.
    public static func href(uid: String, in calendarPath: String) -> String {
        let base = calendarPath.hasSuffix("/") ? calendarPath : calendarPath + "/"
        return base + resourceName(uid: uid)
    }

    /// `UID.ics`, percent-encoded (unreserved characters and `@` stay).
    public static func resourceName(uid: String) -> String {
        var name = ""
        for byte in uid.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "@"):
                name.append(Character(Unicode.Scalar(byte)))
            default:
                name += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return name + ".ics"
    }

    /// The hash of an event's bytes, without its `DTSTAMP` line: the stamp is
    /// the store's last change, which moves with every edit of anyone, and
    /// must not make every event look changed.
    ///
    /// The value is that of ``textHash(_:)``, which every stored hash was made
    /// with; it is computed on the bytes (no line becomes a `String`) unless
    /// the bytes hold what only the text's reading decides: invalid UTF-8, or
    /// a non-ASCII character right after a fold's space or after `DTSTAMP:`
    /// (one that may join it into one `Character`).
    public static func hash(_ bytes: [UInt8]) -> String {
        if let value = byteHash(bytes) { return StableHash.hex(value: value) }
        return textHash(bytes)
    }

    /// The hash as the text reads it: the unfolded lines (``unfolded(_:)``)
    /// without `DTSTAMP`, joined by line feeds.
    package static func textHash(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        let kept = unfolded(text).filter { !$0.hasPrefix("DTSTAMP:") && !$0.hasPrefix("DTSTAMP;") }
        return StableHash.hex(kept.joined(separator: "\n"))
    }

    /// ``textHash(_:)``'s value from the bytes; `nil` where only the text's reading decides.
    package static func byteHash(_ bytes: [UInt8]) -> UInt64? {
        if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) == nil { return nil }
        let lineFeed = UInt8(ascii: "\n")
        let carriageReturn = UInt8(ascii: "\r")
        let stamp = Array("DTSTAMP".utf8)
        return bytes.withUnsafeBufferPointer { buffer -> UInt64? in
            var hash = StableHash.start
            var first = true
            // The unfolded line being read: its pieces, each a range of the bytes.
            var pieces: [Range<Int>] = []
            // Adds the line read so far unless it is a DTSTAMP line; false where the text must decide.
            func finish() -> Bool {
                guard let head = pieces.first else { return true }
                var line: [UInt8] = []
                if pieces.count == 1 {
                    line = Array(buffer[head.prefix(9)])
                } else {
                    for piece in pieces where line.count < 9 { line += buffer[piece] }
                }
                if line.count >= 8, line[0..<7].elementsEqual(stamp), line[7] == UInt8(ascii: ":") || line[7] == UInt8(ascii: ";") {
                    if line.count > 8, line[8] >= 0x80 { return false }
                    pieces.removeAll(keepingCapacity: true)
                    return true
                }
                if !first { StableHash.add(CollectionOfOne(lineFeed), to: &hash) }
                first = false
                for piece in pieces { StableHash.add(UnsafeBufferPointer(rebasing: buffer[piece]), to: &hash) }
                pieces.removeAll(keepingCapacity: true)
                return true
            }
            var start = 0
            let end = buffer.count
            while start < end {
                var stop = start
                while stop < end, buffer[stop] != lineFeed, buffer[stop] != carriageReturn { stop += 1 }
                if stop > start {
                    let leading = buffer[start]
                    if (leading == UInt8(ascii: " ") || leading == UInt8(ascii: "\t")) && !pieces.isEmpty {
                        // A fold: its space or tab is one Character only when an ASCII byte (or nothing) follows.
                        if stop > start + 1, buffer[start + 1] >= 0x80 { return nil }
                        pieces.append(start + 1..<stop)
                    } else {
                        guard finish() else { return nil }
                        pieces.append(start..<stop)
                    }
                }
                start = stop + 1
            }
            guard finish() else { return nil }
            return hash
        }
    }

    /// One hash of the whole calendar: of every event's UID and ``hash(_:)``,
    /// in UID order. Equal hashes mean every resource a publish would write
    /// is byte for byte what the last one wrote (`DTSTAMP` aside).
    public static func calendarHash(_ events: [PublishEvent]) -> String {
        StableHash.hex(events.map { $0.uid + " " + $0.hash }.sorted().joined(separator: "\n"))
    }

    /// The content lines of iCalendar text, unfolded (RFC 5545 §3.1).
    public static func unfolded(_ text: String) -> [String] {
        var lines: [String] = []
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            if let first = raw.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += raw.dropFirst()
            } else {
                lines.append(String(raw))
            }
        }
        return lines
    }

    /// What decides whether an event on the server is ours as we want it:
    /// its UID, dates, rule, title and alarms (action, trigger, text), sorted.
    /// Another client's additions (`ACKNOWLEDGED`, `X-APPLE-…`, a new
    /// `DTSTAMP`, `LAST-MODIFIED`) do not count.
    public static func essentials(_ text: String) -> [String] {
        let names: Set<String> = ["UID", "DTSTART", "DTEND", "RRULE", "SUMMARY", "ACTION", "TRIGGER", "DESCRIPTION", "BEGIN", "END"]
        return unfolded(text).filter { line in
            let name = line.prefix { $0 != ":" && $0 != ";" }.uppercased()
            return names.contains(name)
        }.sorted()
    }

    /// Whether the server's `theirs` has the same dates, title and alarms as `ours`.
    public static func sameEvent(_ ours: [UInt8], _ theirs: String) -> Bool {
        essentials(String(decoding: ours, as: UTF8.self)) == essentials(theirs)
    }
}

/// What one publish to one target did.
public struct PublishReport: Sendable, Equatable, Codable {
    public var name: String
    /// Resources written (created or updated).
    public var put = 0
    public var deleted = 0
    public var unchanged = 0
    /// Events not written because their address holds a resource birthdays
    /// did not write (an earlier import of the feed into that calendar): left as they are.
    public var foreign: [String] = []
    /// Events not written because the server refused them again and again
    /// (412 after each fetch of their tag), by resource name: skipped, so the others are written.
    public var skipped: [String] = []
    /// HTTP requests the publish made.
    public var requests = 0
    /// Why it failed (what succeeded before is recorded); `nil` when it succeeded.
    public var error: PublishError?
    /// The calendar's sync-token to keep for the next publish: the listing's,
    /// or after writes the one that shows only our own changes since
    /// (``PublishPlan/changesAreOurs(changed:removed:expected:wrote:)``);
    /// `nil` when there is none (the next publish then lists every member).
    public var syncToken: String?
    /// Whether the server answered `sync-collection` (`false`: it refused it,
    /// and the listing was a `PROPFIND`); `nil` when the publish did not get that far.
    public var syncCollection: Bool?

    public init(name: String) {
        self.name = name
    }

    public var succeeded: Bool { error == nil }
}

/// Where `publish add` found or made the calendar.
public struct PublishDiscovery: Sendable, Equatable, Codable {
    public var calendarURL: String
    /// Whether discovery made it (MKCALENDAR).
    public var created: Bool

    public init(calendarURL: String, created: Bool) {
        self.calendarURL = calendarURL
        self.created = created
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
