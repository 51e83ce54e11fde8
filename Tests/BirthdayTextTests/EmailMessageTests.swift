import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// The e-mail a reminder becomes: addresses, headers, RFC 2047 and
/// quoted-printable, and Python's e-mail parser reading it back.
@Suite struct EmailMessageTests {
    // MARK: Addresses

    @Test(
        arguments: [
            ("ada@example.org", "ada@example.org", nil),
            ("  ada@example.org ", "ada@example.org", nil),
            ("Ada Lovelace <ada@example.org>", "ada@example.org", "Ada Lovelace"),
            ("<ada@example.org>", "ada@example.org", nil),
            ("Zoë Ñúñez <zoe@example.org>", "zoe@example.org", "Zoë Ñúñez"),
            ("first.last+tag@mail.example.co.uk", "first.last+tag@mail.example.co.uk", nil),
            ("root@localhost", "root@localhost", nil),
            ("o'brien@xn--bcher-kva.example", "o'brien@xn--bcher-kva.example", nil),
        ] as [(String, String, String?)]
    )
    func aValidAddressIsRead(text: String, address: String, name: String?) throws {
        let parsed = try #require(EmailAddress(parsing: text))
        #expect(parsed.address == address)
        #expect(parsed.displayName == name)
    }

    @Test(arguments: [
        "", "ada", "ada@", "@example.org", "ada@example", "a@b@example.org", "ada lovelace@example.org", "ada@exa mple.org",
        "ada@example.org\r\nBcc: x@y.org", "Ada\n<ada@example.org>", "\"Ada\" <ada@example.org>", "ada@example.org, bob@example.org",
        "ada..x@example.org", ".ada@example.org", "ada@example..org", "ada@.example.org", "ada@example.org.", "zoë@example.org",
        "ada@exämple.org", "Ada <ada@example.org", "Ada <a@b.org> <c@d.org>", "Ada <>", "ada@example.org\u{0}", "ada(x)@example.org",
        String(repeating: "a", count: 243) + "@example.org",
    ])
    func anythingButOneAddressIsRefused(text: String) {
        #expect(EmailAddress(parsing: text) == nil)
    }

    @Test func anAddressMayHave254OctetsButNotMore() {
        let domain = "@" + String(repeating: "d", count: 60) + ".example.org"
        #expect(EmailAddress(parsing: String(repeating: "a", count: 254 - domain.utf8.count) + domain) != nil)
        #expect(EmailAddress(parsing: String(repeating: "a", count: 255 - domain.utf8.count) + domain) == nil)
    }

    @Test func theDescriptionIsTheAddressAsTyped() {
        #expect(EmailAddress(address: "ada@example.org").description == "ada@example.org")
        #expect(EmailAddress(address: "ada@example.org", displayName: "Ada\nLovelace").description == "Ada Lovelace <ada@example.org>")
        #expect(EmailAddress(address: "ada@example.org", displayName: " ").description == "ada@example.org")
    }

    // MARK: Headers

    private static let now = Date(timeIntervalSince1970: 1_773_129_600)  // 2026-03-10 08:00:00 UTC

    private static func message(name: String = "Ada", body: String? = nil, to: EmailAddress? = nil, zone: String = "Europe/Berlin") -> EmailMessage {
        let reminder = sampleReminder(title: "\(name)'s birthday", body: body ?? "\(name) turns 37 today", zone: zone)
        return EmailMessage.reminder(
            reminder,
            from: EmailAddress(address: "me@example.org", displayName: "birthdays"),
            to: to ?? EmailAddress(address: "me@example.org", displayName: "Me Myself"),
            host: "laptop",
            now: now,
            token: [0x3F, 0x9A, 0x00, 0xC1]
        )
    }

    @Test func aReminderBecomesThisMessage() {
        let text = String(decoding: Self.message().bytes, as: UTF8.self)
        #expect(
            text == """
                From: birthdays <me@example.org>\r
                To: Me Myself <me@example.org>\r
                Subject: Ada turns 37 today\r
                Date: Tue, 10 Mar 2026 09:00:00 +0100\r
                Message-ID: <3f9a00c1@birthdays.laptop>\r
                MIME-Version: 1.0\r
                Content-Type: text/plain; charset=UTF-8\r
                Content-Transfer-Encoding: quoted-printable\r
                \r
                Ada's birthday\r
                Ada turns 37 today\r
                \r
                =E2=80=94 birthdays\r

                """
        )
    }

    @Test(arguments: [
        ("UTC", "Tue, 10 Mar 2026 08:00:00 +0000"),
        ("Pacific/Kiritimati", "Tue, 10 Mar 2026 22:00:00 +1400"),
        ("America/St_Johns", "Tue, 10 Mar 2026 05:30:00 -0230"),
        ("Pacific/Pago_Pago", "Mon, 09 Mar 2026 21:00:00 -1100"),
    ])
    func theDateIsInTheRemindersZoneWithItsOffset(zone: String, expected: String) {
        let text = String(decoding: Self.message(zone: zone).bytes, as: UTF8.self)
        #expect(text.contains("\r\nDate: \(expected)\r\n"))
    }

    /// RFC 5322 §3.6.4: a Message-ID is unique per message. Providers drop a
    /// message whose Message-ID they have seen, so a trial, a test and the
    /// real reminder of one day must never share one.
    @Test func everyMessageOfOneReminderHasAMessageIDOfItsOwnAndNoName() {
        var reminder = sampleReminder(title: "Zoë's birthday", body: "Zoë turns 37 today")
        reminder.logID = "r-5f2c9a"
        let address = EmailAddress(address: "me@example.org")
        let first = EmailMessage.reminder(reminder, from: address, to: address, host: "Laptop.local", now: Self.now)
        let second = EmailMessage.reminder(reminder, from: address, to: address, host: "Laptop.local", now: Self.now)
        #expect(first.messageID != second.messageID)
        #expect(first.messageID.hasPrefix("<") && first.messageID.hasSuffix("@birthdays.laptop.local>"))
        #expect(first.messageID.count == "<@birthdays.laptop.local>".count + 32, "16 random bytes in hexadecimal: \(first.messageID)")
        #expect(!first.messageID.contains("r-5f2c9a") && !first.messageID.contains("2026"))
        let odd = EmailMessage.reminder(reminder, from: address, to: address, host: "bad host>\r\nX: y", now: Self.now, token: [0x01, 0xFF])
        #expect(odd.messageID == "<01ff@birthdays.badhostxy>")
    }

    @Test func withoutASenderOfItsOwnTheMessageHasNoFrom() {
        let reminder = sampleReminder(title: "Ada's birthday", body: "Ada turns 37 today")
        let message = EmailMessage.reminder(reminder, from: nil, to: EmailAddress(address: "me@example.org"), host: "laptop", now: Self.now)
        let text = String(decoding: message.bytes, as: UTF8.self)
        #expect(text.hasPrefix("To: me@example.org\r\n"), "\(text)")
        #expect(!text.contains("From:"))
    }

    @Test func aNonASCIISubjectBecomesEncodedWordsThatSplitNoCharacter() throws {
        let name = String(repeating: "Zoë Ñúñez 李小龍 🎂 ", count: 6)
        let lines = Self.headerLines(Self.message(name: name), "Subject")
        #expect(lines.count > 1)
        #expect(lines[0].hasPrefix("Subject: =?UTF-8?B?"))
        var decoded: [UInt8] = []
        for (index, line) in lines.enumerated() {
            #expect(line.utf8.count <= 76)
            let word = index == 0 ? String(line.dropFirst("Subject: ".count)) : String(line.dropFirst())
            if index > 0 { #expect(line.hasPrefix(" =?UTF-8?B?")) }
            #expect(word.utf8.count <= 75)
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let bytes = try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2))))
            // Each word is whole UTF-8 on its own.
            #expect(String(validating: bytes, as: UTF8.self) != nil)
            decoded += bytes
        }
        #expect(String(decoding: decoded, as: UTF8.self) == SafeText.line(name + " turns 37 today"))
    }

    @Test func aLongASCIISubjectIsFoldedAtItsSpaces() {
        let name = String(repeating: "Bartholomew ", count: 12)
        let lines = Self.headerLines(Self.message(name: name), "Subject")
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { $0.utf8.count <= 78 })
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(" ") })
        #expect(lines.joined() == "Subject: " + SafeText.line(name + " turns 37 today"))
    }

    @Test(arguments: [
        ("Ada Lovelace", "To: Ada Lovelace <ada@example.org>"),
        ("Lovelace, Ada", "To: \"Lovelace, Ada\" <ada@example.org>"),
        ("Ada \"the Countess\" L. \\o/", #"To: "Ada \"the Countess\" L. \\o/" <ada@example.org>"#),
        ("ada@home", "To: \"ada@home\" <ada@example.org>"),
        ("Ada\r\nBcc: x@y.org", "To: \"Ada Bcc: x@y.org\" <ada@example.org>"),
        ("=?UTF-8?B?QmNjOg==?=", "To: =?UTF-8?B?PT9VVEYtOD9CP1FtTmpPZz09Pz0=?= <ada@example.org>"),
    ])
    func anASCIIDisplayNameIsAPhrase(name: String, expected: String) {
        let message = Self.message(to: EmailAddress(address: "ada@example.org", displayName: name))
        #expect(Self.headerLines(message, "To") == [expected])
    }

    @Test func anAddressCannotBreakItsHeader() {
        let message = Self.message(to: EmailAddress(address: "ada@example.org>\r\nBcc: <x@y.org"))
        #expect(Self.headerLines(message, "To") == ["To: ada@example.orgBccx@y.org"])
    }

    // MARK: Quoted-printable

    @Test func theBodyIsQuotedPrintableInShortLines() {
        let body = "a = b\n.dot\nend space \r\n" + String(repeating: "é", count: 100) + "\rlast"
        let encoded = String(decoding: QuotedPrintable.encode(body), as: UTF8.self)
        let lines = encoded.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(lines.prefix(3)) == ["a =3D b", "=2Edot", "end space=20"])
        #expect(lines.allSatisfy { $0.utf8.count <= 76 })
        #expect(lines.last == "" && lines[lines.count - 2] == "last")
        let joined = lines.dropFirst(3).dropLast(2).map { $0.hasSuffix("=") ? String($0.dropLast()) : $0 }.joined()
        #expect(joined == String(repeating: "=C3=A9", count: 100))
    }

    // MARK: Python reads it back

    /// Names that try to break the message: accents, CJK, emoji, a forged
    /// header, 200 characters (non-ASCII, and ASCII without a space to fold at).
    static let hostileNames = [
        "Zoë Ñúñez",
        "李小龍",
        "Ada 🎂👩‍👩‍👧 Lovelace",
        "Eve\r\nBcc: x@y",
        "Eve\nBcc: x@y\r\n\r\nbody",
        String(repeating: "Zoë ", count: 50),
        String(repeating: "x", count: 200),
        String(repeating: "漢", count: 200),
    ]

    @Test(.enabled(if: PythonMail.isAvailable, Comment(rawValue: PythonMail.missing)), arguments: hostileNames)
    func pythonReadsBackTheNamesAsTheyWereMeant(name: String) async throws {
        let message = Self.message(name: name, to: EmailAddress(address: "ada@example.org", displayName: name))
        let bytes = message.bytes
        Self.expectCRLFLinesOf998(bytes)

        let parsed = try await PythonMail.parse(bytes)
        #expect(parsed.defects.isEmpty)
        for header in parsed.headers { #expect(header.defects.isEmpty, "\(header.name)") }
        #expect(
            parsed.headers.map(\.name) == [
                "From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type", "Content-Transfer-Encoding",
            ]
        )
        #expect(parsed.values("Bcc").isEmpty)
        #expect(parsed.values("Subject") == [SafeText.line(name + " turns 37 today")])
        // What a mail reader shows; Python's own reading adds spaces between encoded words (``PythonMail/Mailbox/name``).
        let shown = SafeText.line(name)
        let encoded = Self.headerLines(message, "To")[0].hasPrefix("To: =?UTF-8?B?")
        #expect((encoded ? parsed.to?.phrase : parsed.to?.name) == shown)
        #expect(parsed.to?.name.filter { $0 != " " } == shown.filter { $0 != " " })
        #expect(parsed.to?.address == "ada@example.org")
        #expect(parsed.to?.count == 1)
        #expect(parsed.from?.name == "birthdays")
        #expect(parsed.body == SafeText.line(name + "'s birthday") + "\n" + SafeText.line(name + " turns 37 today") + "\n\n— birthdays\n")
    }

    // MARK: Helpers

    /// The lines of the header `name` in `message`, folded lines included.
    private static func headerLines(_ message: EmailMessage, _ name: String) -> [String] {
        let text = String(decoding: message.bytes, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix(name + ": ") }) else { return [] }
        return [lines[start]] + lines[(start + 1)...].prefix { $0.hasPrefix(" ") }
    }

    /// Every line of `bytes` ends in CRLF (no bare CR or LF) and has at most 998 octets.
    private static func expectCRLFLinesOf998(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        var length = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D {
                #expect(index + 1 < bytes.count && bytes[index + 1] == 0x0A, "a CR without LF", sourceLocation: sourceLocation)
                #expect(length <= 998, "a line of \(length) octets", sourceLocation: sourceLocation)
                length = 0
                index += 2
                continue
            }
            #expect(bytes[index] != 0x0A, "an LF without CR", sourceLocation: sourceLocation)
            length += 1
            index += 1
        }
        #expect(length == 0, "the last line has no CRLF", sourceLocation: sourceLocation)
    }
}
