import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// Escaped HTML as a type of its own (``HTML``, issue 42): what is
/// interpolated is escaped once, and HTML put into HTML is kept.
///
/// What the compiler refuses is not a test that can run: `page += name` with
/// a `String` name, `HTML(stringLiteral: name)` (the literal type is
/// `StaticString`, which only a literal makes) and `"<p>" + name` as `HTML`
/// do not compile, so a page cannot carry text that was not escaped. These
/// tests check the other half: that every way text does get in escapes it.
@Suite struct HTMLTests {
    static let hostile = "<script>alert('x')</script> & \"co\""
    static let escaped = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;co&quot;"

    @Test func aStringInterpolatedIsEscapedAndTheLiteralKept() {
        let name = Self.hostile
        let html: HTML = "<p class=\"name\">\(name)</p>"
        #expect(html.markup == "<p class=\"name\">" + Self.escaped + "</p>")
    }

    @Test func htmlInterpolatedOrAddedIsKeptAsItIsSoNothingIsEscapedTwice() {
        let inner: HTML = "<b>\(Self.hostile)</b>"
        let outer: HTML = "<p>\(inner)</p>"
        #expect(outer.markup == "<p><b>" + Self.escaped + "</b></p>")
        var page = HTML.empty
        page += outer
        page += "<hr>"
        #expect(page.markup == outer.markup + "<hr>")
        #expect((inner + inner).markup == "<b>" + Self.escaped + "</b><b>" + Self.escaped + "</b>")
        #expect([inner, inner].joined(separator: "; ").markup == "<b>" + Self.escaped + "</b>; <b>" + Self.escaped + "</b>")
    }

    @Test func numbersAndDatesAreWrittenAsTheirText() {
        let date = LocalDate(year: 2026, month: 3, day: 10)!
        let html: HTML = "<time datetime=\"\(date)\">\(10)</time>"
        #expect(html.markup == "<time datetime=\"2026-03-10\">10</time>")
    }

    @Test func aNameIsOneLineAndEscaped() {
        #expect(HTML.name("Ada\n" + Self.hostile).markup == "Ada " + Self.escaped)
    }

    @Test func theInvitationFormEscapesWhatWasTyped() {
        let typed = InviteForm.Entry(name: "\"><script>x</script>", day: "1<", month: "2", year: "'")
        let markup = InvitePage(kind: .form(entry: typed, problem: .name), note: "<i>us</i>", nonce: "n\"", lastYear: 2026).html(.english)
        #expect(!markup.contains("<script>"))
        #expect(!markup.contains("<i>us"))
        #expect(markup.contains("value=\"&quot;&gt;&lt;script&gt;x&lt;/script&gt;\""))
        #expect(markup.contains("value=\"n&quot;\""))
        #expect(markup.contains("<p class=\"who\">&lt;i&gt;us&lt;/i&gt;</p>"))
        #expect(markup.contains(" aria-describedby=\"problem\"></p>"), "markup the page writes is kept, not escaped")
    }

    @Test func thePageEscapesNamesAndLinks() {
        let date = LocalDate(year: 2026, month: 3, day: 12)!
        let event = Occurrence(
            personID: "p",
            name: Self.hostile,
            kind: .birthday,
            date: date,
            eventDate: EventDate(year: 1990, month: 3, day: 12),
            calendarDate: nil,
            age: 36,
            daysUntil: 2
        )
        let page = YearPage(
            today: LocalDate(year: 2026, month: 3, day: 10)!,
            year: [event],
            next: [event],
            links: .init(ics: "a\"b.ics", json: nil, webcal: nil, qrSVG: QRSVG.svg(size: 1, label: "<x>") { _, _ in true })
        )
        let markup = page.html(.english)
        #expect(!markup.contains("<script>"))
        #expect(markup.contains(Self.escaped))
        #expect(markup.contains("href=\"a&quot;b.ics\""))
        #expect(markup.contains("aria-label=\"&lt;x&gt;\""))
    }
}
