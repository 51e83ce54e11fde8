import BirthdayCore
import Foundation

/// The pages an invitation's address serves (`/invite/<token>`): the form,
/// the thank-you page, and the page of a closed link.
///
/// ## Rules
/// - Server-rendered HTML in the owner's language, no script: the form
///   posts to its own address (`form-action 'self'`) and works without
///   JavaScript; the stylesheet is the page's (``YearPage/stylesheet``).
/// - It says who will see the answer: the owner's note, else
///   ``Message/Key/inviteWhoDefault``.
/// - The page is ``HTML``: everything typed that is shown again is escaped; the
///   link's name is never shown (it is the owner's word for the people asked).
public struct InvitePage: Sendable {
    public enum Kind: Sendable, Hashable {
        /// The form, with what was typed and the problem when it is shown again.
        case form(entry: InviteForm.Entry, problem: InviteForm.Problem?)
        /// After an answer was stored.
        case thanks
        /// The link is used up or expired.
        case gone
    }

    public var kind: Kind
    /// The owner's note (``Invitation/note``).
    public var note: String?
    /// A fresh nonce for the form (``InviteNonce``).
    public var nonce: String
    /// The latest year the form's year field takes: this year in the owner's
    /// zone, as the server checks it (``InviteForm/check(_:today:)``).
    public var lastYear: Int
    public var stylesheet: String

    public init(kind: Kind, note: String? = nil, nonce: String = "", lastYear: Int, stylesheet: String = "/page.css") {
        self.kind = kind
        self.note = note
        self.nonce = nonce
        self.lastYear = lastYear
        self.stylesheet = stylesheet
    }

    /// The page's markup in `localizer`'s language (``document(_:)``).
    public func html(_ localizer: Localizer) -> String { document(localizer).markup }

    /// The page in `localizer`'s language.
    public func document(_ localizer: Localizer) -> HTML {
        var out = HTML.pageStart(
            title: localizer(.inviteTitle),
            language: localizer.language,
            stylesheet: stylesheet,
            bodyClass: "invite",
            noIndex: true
        )
        switch kind {
        case .thanks:
            out += "<p class=\"done\">\(localizer(.inviteThanks))</p>\n"
        case .gone:
            out += "<p class=\"done\">\(localizer(.inviteGone))</p>\n"
        case .form(let entry, let problem):
            out += form(entry: entry, problem: problem, localizer: localizer)
        }
        out += "</main>\n</body>\n</html>\n"
        return out
    }

    private func form(entry: InviteForm.Entry, problem: InviteForm.Problem?, localizer: Localizer) -> HTML {
        let who = note.map { SafeText.line($0, maxCharacters: Invitation.maxNoteCharacters) } ?? localizer(.inviteWhoDefault)
        var out: HTML = "<p>\(localizer(.inviteIntro))</p>\n"
        out += "<p class=\"who\">\(who)</p>\n"
        if let problem {
            let key: Message.Key =
                switch problem {
                case .name: .inviteProblemName
                case .date: .inviteProblemDate
                case .year: .inviteProblemYear
                case .stale: .inviteProblemStale
                case .future: .inviteProblemFuture
                case .busy: .inviteProblemBusy
                }
            out += "<p class=\"problem\" id=\"problem\" role=\"alert\">\(localizer(key))</p>\n"
        }
        let described: HTML = problem == nil ? "" : " aria-describedby=\"problem\""
        out += "<form method=\"post\" action=\"\" accept-charset=\"utf-8\">\n"
        out += "<input type=\"hidden\" name=\"nonce\" value=\"\(nonce)\">\n"
        out += "<p><label for=\"name\">\(localizer(.inviteName))</label>\n"
        out += "<input id=\"name\" name=\"name\" type=\"text\" required maxlength=\"\(InviteForm.maxNameCharacters)\" autocomplete=\"name\""
        out += " value=\"\(SafeText.line(entry.name, maxCharacters: 200))\"\(problem == .name ? described : .empty)></p>\n"
        out += "<fieldset\(problem == .date || problem == .year || problem == .future ? described : .empty)>\n"
        out += "<legend>\(localizer(.inviteBirthday))</legend>\n"
        out += "<p><label for=\"day\">\(localizer(.inviteDay))</label>\n"
        out += "<input id=\"day\" name=\"day\" type=\"number\" inputmode=\"numeric\" min=\"1\" max=\"31\" required autocomplete=\"bday-day\""
        out += " value=\"\(SafeText.line(entry.day, maxCharacters: 8))\"></p>\n"
        out += "<p><label for=\"month\">\(localizer(.inviteMonth))</label>\n"
        out += "<select id=\"month\" name=\"month\" required autocomplete=\"bday-month\">\n"
        out += "<option value=\"\"></option>\n"
        let typedMonth = Int(entry.month.trimmingWhitespace())
        for month in 1...12 {
            guard let first = LocalDate(year: 2000, month: month, day: 1) else { continue }
            let selected: HTML = typedMonth == month ? " selected" : ""
            out += "<option value=\"\(month)\"\(selected)>\(localizer.monthName(first))</option>\n"
        }
        out += "</select></p>\n"
        out += "<p><label for=\"year\">\(localizer(.inviteYear))</label>\n"
        out +=
            "<input id=\"year\" name=\"year\" type=\"number\" inputmode=\"numeric\" min=\"\(InviteForm.firstYear)\" max=\"\(lastYear)\" autocomplete=\"bday-year\""
        out += " value=\"\(SafeText.line(entry.year, maxCharacters: 8))\"></p>\n"
        out += "</fieldset>\n"
        out += "<p><button type=\"submit\">\(localizer(.inviteSend))</button></p>\n"
        out += "</form>\n"
        return out
    }
}
