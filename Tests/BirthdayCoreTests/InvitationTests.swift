import Foundation
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// Invitations as values (issue 35): the form's body, names and dates, the
/// nonce and its HMAC, the per-address limit, what a POST comes to, the
/// pages and the owner's message.
@Suite struct InvitationTests {
    static let now = Date(timeIntervalSince1970: 1_773_126_000)  // 2026-03-10T07:00:00Z
    static let today = LocalDate(year: 2026, month: 3, day: 10)!

    // MARK: The body

    @Test func theBodyIsReadAsAFormWithPlusAndPercentEscapes() {
        let entry = InviteForm.entry(body: Array("name=Ada+Lovelace%0D%0AX%3A1&day=10&month=12&year=&nonce=n&name=second&other=x".utf8))
        #expect(entry.name == "Ada Lovelace\r\nX:1", "the first value of a repeated field")
        #expect(entry.day == "10")
        #expect(entry.month == "12")
        #expect(entry.year == "")
        #expect(entry.nonce == "n")
        #expect(InviteForm.entry(body: Array("name=%ZZ%4".utf8)).name == "%ZZ%4", "a broken escape is kept as typed")
        #expect(InviteForm.entry(body: Array("name=%FF".utf8)).name == "\u{FFFD}", "invalid UTF-8 is replaced")
    }

    // MARK: Names and dates

    @Test(arguments: [
        ("30", "2", "", InviteForm.Problem.date),
        ("31", "4", "", .date),
        ("0", "1", "", .date),
        ("1", "13", "", .date),
        ("x", "1", "", .date),
        ("29", "2", "2023", .year),
        ("1", "1", "2999", .future),
        ("1", "1", "2O26", .year),
        ("1", "1", "1899", .year),
        ("1", "1", "90", .year),
    ])
    func datesThatDoNotExistAreProblems(day: String, month: String, year: String, problem: InviteForm.Problem) {
        let result = InviteForm.check(InviteForm.Entry(name: "Ada", day: day, month: month, year: year), today: Self.today)
        #expect(result == .failure(InviteForm.ProblemError(problem)))
    }

    @Test func february29WithoutAYearAndWithALeapYearIsFine() throws {
        let answer = try InviteForm.check(InviteForm.Entry(name: "Leap", day: "29", month: "2"), today: Self.today).get()
        #expect(answer.month == 2 && answer.day == 29 && answer.year == nil)
        let leap = try InviteForm.check(InviteForm.Entry(name: "Leap", day: "29", month: "02", year: "2000"), today: Self.today).get()
        #expect(leap.year == 2000)
    }

    @Test func namesAreCleanedToOneLineAndCapped() throws {
        let answer = try InviteForm.check(InviteForm.Entry(name: "  Eve\r\nSet-Cookie: x=1\u{1B}[31m ", day: "1", month: "1"), today: Self.today)
            .get()
        #expect(answer.name == "Eve Set-Cookie: x=1 [31m")
        let long = try InviteForm.check(InviteForm.Entry(name: String(repeating: "a", count: 500), day: "1", month: "1"), today: Self.today).get()
        #expect(long.name.count == InviteForm.maxNameCharacters)
        let empty = InviteForm.check(InviteForm.Entry(name: "\r\n\u{202E}", day: "1", month: "1"), today: Self.today)
        #expect(empty == .failure(InviteForm.ProblemError(.name)))
    }

    /// Issue 41: names that look empty, and one "character" of 600 combining marks.
    @Test(arguments: [
        "\u{200B}", "\u{00A0}\u{00A0}", "\u{202F}\u{202F}", "\u{2060}\u{FEFF}", "...", "123", "🎂",
        "e" + String(repeating: "\u{0301}", count: 600), String(repeating: "\u{0301}", count: 3),
    ])
    func aNameNeedsAVisibleLetterAndFitsTheByteCap(name: String) {
        let result = InviteForm.check(InviteForm.Entry(name: name, day: "1", month: "1"), today: Self.today)
        #expect(result == .failure(InviteForm.ProblemError(.name)), "\(name.unicodeScalars.map { String($0.value, radix: 16) }.prefix(4))")
    }

    @Test func theByteCapKeepsWholeCharactersOfLongNames() throws {
        // 100 characters of 4 bytes each fit; 100 of 2 + 3 combining marks (8 bytes) do not.
        let kanji = String(repeating: "𠀋", count: 100)
        #expect(try InviteForm.check(InviteForm.Entry(name: kanji, day: "1", month: "1"), today: Self.today).get().name == kanji)
        let heavy = String(repeating: "a\u{0301}\u{0302}\u{0303}", count: 100)
        let kept = try InviteForm.check(InviteForm.Entry(name: heavy, day: "1", month: "1"), today: Self.today).get().name
        #expect(kept.utf8.count <= InviteForm.maxNameBytes)
        #expect(kept.hasSuffix("…"))
        #expect(kept.dropLast().allSatisfy { $0 == "a\u{0301}\u{0302}\u{0303}" }, "whole characters only")
        #expect(try InviteForm.check(InviteForm.Entry(name: "Zoë 李", day: "1", month: "1"), today: Self.today).get().name == "Zoë 李")
    }

    /// Issue 41: 31 December when today is 6 December, and next year, are refused in words; today is fine.
    @Test func aDateAfterTodayIsRefusedAndTheFormsYearStopsAtThisYear() throws {
        let today = LocalDate(year: 2026, month: 12, day: 6)!
        func check(_ day: String, _ month: String, _ year: String) -> Result<InviteForm.Answer, InviteForm.ProblemError> {
            InviteForm.check(InviteForm.Entry(name: "Kid", day: day, month: month, year: year), today: today)
        }
        #expect(check("31", "12", "2026") == .failure(InviteForm.ProblemError(.future)))
        #expect(check("1", "1", "2027") == .failure(InviteForm.ProblemError(.future)))
        #expect(try check("6", "12", "2026").get().year == 2026)
        #expect(try check("31", "12", "").get().year == nil, "without a year no date is in the future")
        for language in StringCatalog.embedded.languages {
            let localizer = Localizer(language: language)
            let html = InvitePage(kind: .form(entry: InviteForm.Entry(year: "2027"), problem: .future), lastYear: 2026).html(localizer)
            #expect(html.contains(HTML(escaping: localizer(.inviteProblemFuture)).markup), "\(language)")
            #expect(localizer(.inviteProblemFuture) != Localizer(language: "en")(.inviteProblemFuture) || language.hasPrefix("en"), "\(language)")
            #expect(html.contains("min=\"1900\" max=\"2026\""))
        }
    }

    // MARK: Other sites and the trusted proxy

    @Test(
        arguments: [
            (nil, nil, false),
            ("http://127.0.0.1:8484", nil, false),
            ("https://birthdays.example.org", nil, false),
            ("http://BIRTHDAYS.example.org:80", "same-origin", false),
            (nil, "none", false),
            ("https://evil.example", nil, true),
            ("https://birthdays.example.org.evil.example", nil, true),
            ("null", nil, true),
            ("http://127.0.0.1:8485", nil, true),
            (nil, "cross-site", true),
            (nil, "same-site", true),
            ("https://birthdays.example.org", "cross-site", true),
            ("null", "same-origin", false),
        ] as [(String?, String?, Bool)]
    )
    func anAnswerFromAnotherSiteIsForeign(origin: String?, fetchSite: String?, foreign: Bool) {
        let hosts = ["127.0.0.1:8484", "birthdays.example.org"]
        #expect(InviteOrigin.isForeign(origin: origin, fetchSite: fetchSite, hosts: hosts) == foreign)
    }

    @Test func theTrustedProxyNamesTheClientAndNoOneElseDoes() throws {
        let proxy = try #require(TrustedProxy("127.0.0.1"))
        #expect(
            proxy.client(peer: "127.0.0.1", forwardedFor: ["203.0.113.9, 198.51.100.7"], forwarded: []) == "198.51.100.7",
            "the one the proxy added"
        )
        #expect(proxy.client(peer: "::ffff:127.0.0.1", forwardedFor: ["198.51.100.7:4711"], forwarded: []) == "198.51.100.7")
        #expect(
            proxy.client(peer: "127.0.0.1", forwardedFor: [], forwarded: ["for=192.0.2.1, for=\"[2001:DB8::1]:4711\";proto=https"]) == "2001:db8::1"
        )
        #expect(proxy.client(peer: "127.0.0.1", forwardedFor: [], forwarded: ["for=unknown"]) == "127.0.0.1")
        #expect(proxy.client(peer: "127.0.0.1", forwardedFor: [], forwarded: []) == "127.0.0.1")
        #expect(
            proxy.client(peer: "127.0.0.3", forwardedFor: ["198.51.100.7"], forwarded: ["for=192.0.2.1"]) == "127.0.0.3",
            "a header from anyone else is ignored"
        )
        #expect(proxy.forwardedHost(peer: "127.0.0.1", forwardedHost: ["birthdays.example.org"], forwarded: []) == "birthdays.example.org")
        #expect(proxy.forwardedHost(peer: "127.0.0.3", forwardedHost: ["evil.example"], forwarded: []) == nil)
        #expect(TrustedProxy("::1")?.address == "::1")
        #expect(TrustedProxy("2001:0db8:0:0:0:0:0:01")?.address == "2001:db8::1")
        for wrong in ["proxy.example", "127.0.0.256", "10.0.0.0/8", "", "1.2.3", "01.2.3.4", ":::1"] {
            #expect(TrustedProxy(wrong) == nil, "\(wrong)")
        }
        var settings = Settings()
        try settings.set(.trustedProxy, to: "::ffff:10.0.0.2")
        #expect(settings.text(for: .trustedProxy) == "10.0.0.2")
        #expect(Settings(stored: ["trusted-proxy": "10.0.0.2"]).trustedProxy == TrustedProxy("10.0.0.2"))
        try settings.set(.trustedProxy, to: "off")
        #expect(settings.trustedProxy == nil)
        #expect(throws: SettingsError.self) { try settings.set(.trustedProxy, to: "proxy.example") }
    }

    @Test func aLinkThatTakesAnswersAtOnceHasACapAndSaysWhenItIsReached() {
        #expect(Invitation.usesAllowed(nil, autoAccept: true) == Invitation.defaultAutoAcceptUses)
        #expect(Invitation.usesAllowed(nil, autoAccept: false) == nil)
        #expect(Invitation.usesAllowed(500, autoAccept: true) == 500)
        let request = InvitationNotice.usedUp(
            answerID: 20,
            invitationID: 2,
            invitation: "Team",
            uses: 20,
            now: Self.now,
            today: Self.today,
            in: Localizer(language: "en")
        )
        #expect(request.body.contains("Team") && request.body.contains("20"), "\(request.body)")
        #expect(request.id == InvitationNotice.usedUpID(invitationID: 2))
        #expect(request.id != InvitationNotice.notificationID(invitationID: 2), "a row of its own beside the day's message")
        #expect(DeliveryEntry(queued: request, at: Self.now).isInvitationNotice)
    }

    // MARK: The nonce

    @Test(arguments: [
        ("4a656665", "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (
            String(repeating: "0b", count: 20), "Hi There",
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
    ])
    func hmacMatchesRFC4231(keyHex: String, message: String, mac: String) {
        // RFC 4231 test cases 2 and 1 (HMAC.key wants at least 16 bytes, so test 2's short key is given directly).
        let key = keyHex.count >= 32 ? HMAC.key(hex: keyHex) ?? [] : Array("Jefe".utf8)
        #expect(HMAC.hex(key: key, message: message) == mac)
    }

    @Test func aNonceIsGoodForItsLinkUntilItExpiresAndCannotBeForged() {
        let key = Array(repeating: UInt8(7), count: 32)
        let nonce = InviteNonce.issue(invitationID: 3, key: key, now: Self.now)
        #expect(InviteNonce.isValid(nonce, invitationID: 3, key: key, now: Self.now))
        #expect(InviteNonce.isValid(nonce, invitationID: 3, key: key, now: Self.now.addingTimeInterval(InviteNonce.lifetime - 1)))
        #expect(!InviteNonce.isValid(nonce, invitationID: 3, key: key, now: Self.now.addingTimeInterval(InviteNonce.lifetime + 1)), "expired")
        #expect(!InviteNonce.isValid(nonce, invitationID: 4, key: key, now: Self.now), "another link's")
        #expect(!InviteNonce.isValid(nonce, invitationID: 3, key: Array(repeating: 8, count: 32), now: Self.now), "another key")
        var parts = nonce.split(separator: ".").map(String.init)
        parts[0] = String(Int(parts[0])! + 86_400)
        #expect(!InviteNonce.isValid(parts.joined(separator: "."), invitationID: 3, key: key, now: Self.now), "a later expiry")
        #expect(!InviteNonce.isValid("", invitationID: 3, key: key, now: Self.now))
        #expect(InviteNonce.issue(invitationID: 3, key: key, now: Self.now) != nonce, "a new one each time")
        #expect(InviteNonce.usedHash(nonce).count == 64)
    }

    // MARK: The per-address limit

    @Test func theLimitAdmitsAFewAMinutePerAddress() {
        var limit = InviteRateLimit(limit: 5, window: 60)
        func admit(_ address: String, at second: Double) -> Bool { limit.admit(address, now: Self.now.addingTimeInterval(second)) }
        let first = (0..<5).map { admit("192.0.2.1", at: Double($0)) }
        #expect(first == [true, true, true, true, true])
        #expect(!admit("192.0.2.1", at: 5))
        #expect(admit("192.0.2.2", at: 5), "another address")
        #expect(!admit("192.0.2.1", at: 59))
        #expect(admit("192.0.2.1", at: 61), "a minute after the first")
    }

    @Test func anIPv6AddressIsCountedByItsSlash64() {
        #expect(InviteRateLimit.counted("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(InviteRateLimit.counted("2001:0DB8:0001:0002:ffff:1:2:3") == "2001:db8:1:2::/64")
        #expect(InviteRateLimit.counted("2001:db8::1") == "2001:db8:0:0::/64")
        #expect(InviteRateLimit.counted("fe80::1%eth0") == "fe80:0:0:0::/64")
        #expect(InviteRateLimit.counted("::1") == "0:0:0:0::/64")
        #expect(InviteRateLimit.counted("::ffff:192.0.2.7") == "192.0.2.7", "IPv4-mapped: the IPv4 address")
        #expect(InviteRateLimit.counted("192.0.2.7") == "192.0.2.7")
        // Five answers from one /64, each from a fresh address: the sixth is refused; another /64 is not.
        var limit = InviteRateLimit(limit: 5, window: 60)
        let admitted = (1...6).map { limit.admit("2001:db8:1:2::\($0)", now: Self.now) }
        #expect(admitted == [true, true, true, true, true, false])
        let another = limit.admit("2001:db8:1:3::1", now: Self.now)
        #expect(another, "another /64")
    }

    @Test func theLimitForgetsAddressesBeyondItsBound() {
        var limit = InviteRateLimit(limit: 1, window: 60)
        var admitted = 0
        for index in 0..<(InviteRateLimit.maxAddresses + 10) where limit.admit("addr\(index)", now: Self.now) { admitted += 1 }
        #expect(admitted == InviteRateLimit.maxAddresses + 10, "each new address once")
        #expect(limit.rememberedAddresses <= InviteRateLimit.maxAddresses, "the oldest are forgotten to make room")
    }

    // MARK: Links and outcomes

    @Test func aLinkIsOpenWhileItHasUsesAndTime() {
        var link = Invitation(id: 1, name: "Friends", usesAllowed: 2, expiresAt: Self.now.addingTimeInterval(60), createdAt: Self.now)
        #expect(link.standing(at: Self.now) == .open)
        link.used = 2
        #expect(link.standing(at: Self.now) == .used)
        link.used = 0
        #expect(link.standing(at: Self.now.addingTimeInterval(60)) == .expired)
        #expect(Invitation(id: 1, name: "Any", createdAt: Self.now).standing(at: .distantFuture) == .open)
    }

    @Test(arguments: [("30m", 1_800.0), ("12h", 43_200), ("7d", 604_800), ("2w", 1_209_600)])
    func durationsAreMinutesHoursDaysOrWeeks(text: String, seconds: Double) {
        #expect(Invitation.duration(text) == seconds)
    }

    @Test(arguments: ["", "d", "7", "7y", "-1d", "0d", "400d", "1.5d"])
    func otherDurationsAreRefused(text: String) {
        #expect(Invitation.duration(text) == nil)
    }

    @Test func aPostIsDecidedBeforeItsBodyIsRead() {
        #expect(InviteOutcome.before(contentLength: 100_000, admitted: { true }) == .tooLarge)
        #expect(InviteOutcome.before(contentLength: 4_097, admitted: { true }) == .tooLarge)
        #expect(InviteOutcome.before(contentLength: 4_096, admitted: { true }) == nil)
        #expect(InviteOutcome.before(contentLength: nil, admitted: { false }) == .tooMany)
        var asked = false
        let foreign = InviteOutcome.before(contentLength: 10, foreign: true) {
            asked = true
            return true
        }
        #expect(foreign == .foreign)
        #expect(!asked, "a foreign post costs the address nothing")
        let statuses = [
            InviteOutcome.stored(id: 1, accepted: false), .unknown, .gone, .tooLarge, .tooMany, .foreign, .repeated,
            .form(InviteForm.Entry(), .date), .form(InviteForm.Entry(), .stale), .form(InviteForm.Entry(), .future),
            .form(InviteForm.Entry(), .busy),
        ].map(\.status)
        #expect(statuses == [200, 404, 410, 413, 429, 403, 200, 400, 409, 400, 429])
    }

    // MARK: Pages and the owner's message

    @Test func theFormShowsWhatWasTypedEscapedAndNoScript() {
        let page = InvitePage(
            kind: .form(entry: InviteForm.Entry(name: "<script>alert(1)</script>", day: "30", month: "2", year: "\"1990"), problem: .date),
            note: "Only <b>Ada</b> sees it.",
            nonce: "n\"1",
            lastYear: 2026
        )
        let html = page.html(Localizer(language: "en"))
        #expect(!html.contains("<script"))
        #expect(html.contains("value=\"&lt;script&gt;alert(1)&lt;/script&gt;\""))
        #expect(html.contains("value=\"&quot;1990\""))
        #expect(html.contains("Only &lt;b&gt;Ada&lt;/b&gt; sees it."))
        #expect(html.contains("value=\"n&quot;1\""))
        #expect(html.contains("role=\"alert\""))
        #expect(html.contains("<option value=\"2\" selected>February</option>"))
        #expect(html.contains("<html lang=\"en\">"))
    }

    @Test func theFormIsInTheOwnersLanguage() {
        let html = InvitePage(kind: .form(entry: InviteForm.Entry(), problem: nil), nonce: "n", lastYear: 2026).html(Localizer(language: "de"))
        #expect(html.contains("<html lang=\"de\">"))
        #expect(html.contains("Dein Geburtstag"))
        #expect(html.contains("Nur die Person, die dir diesen Link geschickt hat"))
        #expect(html.contains(">Dezember</option>"))
    }

    @Test(arguments: ["en", "de", "fr", "ja", "zh-Hans"])
    func theOwnersMessageNamesTheLinkAndTheNumberNeverTheAnswer(language: String) {
        let localizer = Localizer(language: language)
        let today = LocalDate(year: 2026, month: 3, day: 10)!
        let request = InvitationNotice.request(
            answerID: 3,
            invitationID: 2,
            invitation: "Friends\r\nX",
            accepted: false,
            now: Self.now,
            today: today,
            in: localizer
        )
        #expect(request.body.contains("Friends X"))
        #expect(request.body.contains("birthdays invites accept 3"))
        #expect(request.id == "invite-2", "the link's id: one message per link and day")
        let entry = DeliveryEntry(queued: request, at: Self.now)
        #expect(entry.isInvitationNotice)
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let decision = entry.decision(
            now: Self.now.addingTimeInterval(1),
            timeZone: zone,
            deliveryTime: TimeOfDay(hour: 9, minute: 0)!,
            quietAfter: TimeOfDay(hour: 21, minute: 0)!,
            lateAfter: .seconds(60)
        )
        #expect(decision == .deliver(late: false), "due at once, not at the delivery time")
    }

    @Test func theEnglishMessagesReadAsTheIssueSays() {
        let localizer = Localizer(language: "en")
        let today = LocalDate(year: 2026, month: 3, day: 10)!
        #expect(
            InvitationNotice.request(answerID: 3, invitationID: 2, invitation: "Friends", accepted: false, now: Self.now, today: today, in: localizer)
                .body
                == "A birthday arrived through the invitation Friends: accept with birthdays invites accept 3"
        )
        #expect(
            InvitationNotice.request(answerID: 4, invitationID: 2, invitation: "Team", accepted: true, now: Self.now, today: today, in: localizer)
                .body
                == "A birthday arrived through the invitation Team and was added (answer 4; birthdays invites --all)"
        )
    }
}
