import Foundation

/// What a pending request or a ledger row is: a reminder of one person's
/// occasion, a digest of the days ahead, a team room's message, or the
/// owner's message that an invitation was answered, or the greeting sent to
/// the friend themselves (issue 44). Every rule that depends on it is a
/// `switch` over it, so a new kind is one case the compiler asks every rule about.
///
/// Stored in the `deliveryKind` column of the pending table and of the
/// ledger (migration `v31-delivery-kind`) as one JSON object with one key
/// (``storedValue``):
///
/// | case | stored |
/// |---|---|
/// | ``reminder(_:)`` | `{"reminder":{}}`, with the occasion's `calendar`, `label`, `label_id`, `moved_to`, `zone` when set |
/// | ``digest(_:)`` | `{"digest":"weekly"}` |
/// | ``announcement(room:)`` | `{"announce":"team"}` |
/// | ``invitationNotice(answerID:)`` | `{"invite":3}` |
/// | ``greeting(personID:)`` | `{"greeting":"ana"}` |
public enum DeliveryKind: Hashable, Sendable {
    /// A reminder of one person's birthday, anniversary or labelled date.
    case reminder(Occasion)
    /// The digest of the days ahead (``Digest``): no person, one line per event.
    case digest(DigestFrequency)
    /// A team room's message (``Announcement``), sent to that room alone.
    case announcement(room: String)
    /// The owner's message that an invitation was answered (``InvitationNotice``),
    /// due at its own instant; `answerID` is the answer that made it.
    case invitationNotice(answerID: Int64)
    /// The greeting sent to the friend `personID` on their birthday
    /// (`birthdays greet`, ``GreetingPlan``): to them, never to the owner's
    /// channels, judged by their day in their zone.
    case greeting(personID: String)

    /// What a reminder is about beyond its person and ``EventKind``: the
    /// calendar of its date, the label of a labelled date, the day a weekend
    /// rule moved it to, and the person's own zone.
    public struct Occasion: Hashable, Sendable {
        /// The calendar of the date it is about; `nil` for a Gregorian date.
        public var calendar: CalendarSystem?
        /// A labelled date's label, as the card writes it.
        public var label: String?
        /// A labelled date's part of the id (``LabelledDate/idPart(key:ordinal:)``).
        public var labelID: String?
        /// The day the person's weekend rule (``WeekendRule``) moved it to; `nil` when not moved.
        public var movedTo: LocalDate?
        /// The person's own zone the reminder was planned for; `nil` is the user's own.
        public var zone: PersonZone?

        public init(
            calendar: CalendarSystem? = nil,
            label: String? = nil,
            labelID: String? = nil,
            movedTo: LocalDate? = nil,
            zone: PersonZone? = nil
        ) {
            self.calendar = calendar
            self.label = label
            self.labelID = labelID
            self.movedTo = movedTo
            self.zone = zone
        }
    }

    /// The occasion of a reminder; `nil` for the other kinds.
    public var occasion: Occasion? {
        switch self {
        case .reminder(let occasion): occasion
        case .digest, .announcement, .invitationNotice, .greeting: nil
        }
    }

    /// The friend a greeting goes to; `nil` for the other kinds.
    public var greetedPersonID: String? {
        switch self {
        case .greeting(let personID): personID
        case .reminder, .digest, .announcement, .invitationNotice: nil
        }
    }

    // MARK: - Stored

    /// The JSON object the store keeps (see the type's table); keys sorted, no spaces.
    public var storedValue: String {
        // A greeting's person id is nearly always plain (a UUID): written as the encoder would write it,
        // without one per request (a reschedule stores one greeting per greeted friend: issue 44).
        if case .greeting(let personID) = self, Self.isPlainJSON(personID) { return #"{"greeting":""# + personID + #""}"# }
        var stored = Stored()
        switch self {
        case .reminder(let occasion):
            stored.reminder = StoredOccasion(
                calendar: occasion.calendar?.rawValue,
                label: occasion.label,
                labelID: occasion.labelID,
                movedTo: occasion.movedTo?.description,
                zone: occasion.zone?.storedValue
            )
        case .digest(let frequency): stored.digest = frequency.rawValue
        case .announcement(let room): stored.announce = room
        case .invitationNotice(let answerID): stored.invite = answerID
        case .greeting(let personID): stored.greeting = personID
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and integers only: encoding cannot fail.
        return (try? encoder.encode(stored)).map { String(decoding: $0, as: UTF8.self) } ?? #"{"reminder":{}}"#
    }

    /// Whether `text` is written in JSON as it is, between quotes: printable
    /// ASCII without a quote, a backslash or a slash (what an encoder would escape).
    static func isPlainJSON(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "/") }
    }

    /// Reads ``storedValue``; `nil` unless it holds exactly one kind this
    /// version knows (a kind written by a newer version is not guessed). An
    /// occasion's value that does not read (a calendar or zone unknown here)
    /// is left out, as it always was.
    public init?(storedValue: String) {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(storedValue.utf8)) else { return nil }
        let present = [stored.reminder != nil, stored.digest != nil, stored.announce != nil, stored.invite != nil, stored.greeting != nil].filter {
            $0
        }.count
        guard present == 1 else { return nil }
        if let occasion = stored.reminder {
            self = .reminder(
                Occasion(
                    calendar: occasion.calendar.flatMap(CalendarSystem.init(rawValue:)),
                    label: occasion.label,
                    labelID: occasion.labelID,
                    movedTo: occasion.movedTo.flatMap { LocalDate(iso: $0) },
                    zone: occasion.zone.flatMap { PersonZone(cardValue: $0) }
                )
            )
        } else if let digest = stored.digest {
            guard let frequency = DigestFrequency(rawValue: digest) else { return nil }
            self = .digest(frequency)
        } else if let room = stored.announce {
            self = .announcement(room: room)
        } else if let answerID = stored.invite {
            self = .invitationNotice(answerID: answerID)
        } else if let personID = stored.greeting {
            self = .greeting(personID: personID)
        } else {
            return nil
        }
    }

    private struct Stored: Codable {
        var reminder: StoredOccasion?
        var digest: String?
        var announce: String?
        var invite: Int64?
        var greeting: String?
    }

    private struct StoredOccasion: Codable {
        var calendar: String?
        var label: String?
        var labelID: String?
        var movedTo: String?
        var zone: String?

        enum CodingKeys: String, CodingKey {
            case calendar, label, zone
            case labelID = "label_id"
            case movedTo = "moved_to"
        }
    }
}
