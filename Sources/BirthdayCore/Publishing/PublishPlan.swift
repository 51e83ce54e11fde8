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
        leftAlone: Int = 0
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
/// changed ones (`If-Match` with the tag we know), DELETEs of the resources
/// we wrote whose events are no longer wanted (`If-Match`). Pure: the
/// helper sends it; resources we did not write never appear in it.
public struct PublishPlan: Sendable, Equatable {
    public struct Put: Sendable, Equatable {
        public var uid: String
        public var href: String
        /// `nil`: create (`If-None-Match: *`); else `If-Match` with it.
        public var etag: String?

        public init(uid: String, href: String, etag: String?) {
            self.uid = uid
            self.href = href
            self.etag = etag
        }
    }

    public struct Delete: Sendable, Equatable {
        public var uid: String
        public var href: String
        public var etag: String?

        public init(uid: String, href: String, etag: String?) {
            self.uid = uid
            self.href = href
            self.etag = etag
        }
    }

    public var puts: [Put] = []
    public var deletes: [Delete] = []
    public var unchanged = 0

    /// - Parameters:
    ///   - wanted: the hash of every event we want, by UID.
    ///   - published: what we wrote before, by UID.
    ///   - calendarPath: the calendar collection's path (percent-encoded, ending with `/`): new resources go there.
    ///   - changedElsewhere: UIDs whose resource another client changed (its tag is not ours): put again even when our hash is the same.
    public init(wanted: [String: String], published: [String: PublishedEvent], calendarPath: String, changedElsewhere: Set<String> = []) {
        for uid in wanted.keys.sorted() {
            guard let hash = wanted[uid] else { continue }
            if let old = published[uid] {
                if old.hash == hash && !changedElsewhere.contains(uid) {
                    unchanged += 1
                } else {
                    puts.append(Put(uid: uid, href: old.href, etag: old.etag))
                }
            } else {
                puts.append(Put(uid: uid, href: Self.href(uid: uid, in: calendarPath), etag: nil))
            }
        }
        for uid in published.keys.sorted() where wanted[uid] == nil {
            guard let old = published[uid] else { continue }
            deletes.append(Delete(uid: uid, href: old.href, etag: old.etag))
        }
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
    public static func hash(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        let kept = unfolded(text).filter { !$0.hasPrefix("DTSTAMP:") && !$0.hasPrefix("DTSTAMP;") }
        return StableHash.hex(kept.joined(separator: "\n"))
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
    /// HTTP requests the publish made.
    public var requests = 0
    /// Why it failed (what succeeded before is recorded); `nil` when it succeeded.
    public var error: SourceError?

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
