import BirthdayCore
import Foundation

/// Writes a birthday into a card of a CardDAV address book (the helper's
/// `write-birthday`, for the use case `CardWriteBack`).
///
/// 1. `GET` the card, with its `ETag`.
/// 2. Add the birthday (``VCardBirthdayEdit``: the card's own version, every
///    other line as the server sent it; a card with a birthday of its own is
///    left alone).
/// 3. `PUT` it with `If-Match: <ETag>` ([RFC 7232](https://www.rfc-editor.org/rfc/rfc7232#section-3.1)),
///    so a card changed on the server in between (on the phone, say) is never
///    overwritten: the server answers 412, and the card is read and edited
///    once more; a second 412 is ``WriteBackError/changedMeanwhile(location:)``.
///
/// Redirects are not followed (a write must go where the card was read).
/// The sync that follows reads the card as any edit: the same person, with the date.
package struct CardDAVWriter: Sendable {
    private let username: String?
    private let password: String?
    private let userAgent: String
    private let deadline: Duration
    /// Runs between the `GET` and the `PUT` (tests change the card on the server there).
    private let beforePut: @Sendable () async -> Void

    package init(
        username: String?,
        password: String?,
        userAgent: String = "birthdays",
        deadline: Duration = DAVLimits.defaultDeadline,
        beforePut: @escaping @Sendable () async -> Void = {}
    ) {
        self.username = username
        self.password = password
        self.userAgent = userAgent
        self.deadline = deadline
        self.beforePut = beforePut
    }

    /// Adds `birthday` to the card of `personID` at `href` (a path on the server) of the address book `book`.
    package func writeBirthday(_ birthday: EventDate, personID: String, href: String, book: String) async throws(WriteBackError) -> CardWriteResult {
        guard let bookURL = URL(string: book), bookURL.scheme == "http" || bookURL.scheme == "https",
            let card = URL(string: href, relativeTo: bookURL)?.absoluteURL
        else { throw .invalidLocation(location: book, reason: "not an http(s) URL") }
        let shown = DAVSession.display(card)
        let session = DAVSession(
            username: username,
            password: password,
            userAgent: userAgent,
            // One card, a photo included: 16 MB at most.
            limits: DAVLimits(answerBytes: 16_000_000, deadline: deadline),
            followsRedirects: false
        )
        let result: Result<CardWriteResult, WriteBackError>
        do throws(WriteBackError) {
            result = .success(try await write(birthday, personID: personID, card: card, shown: shown, session: session))
        } catch {
            result = .failure(error)
        }
        await session.shutdown()
        return try result.get()
    }

    private func write(
        _ birthday: EventDate,
        personID: String,
        card: URL,
        shown: String,
        session: DAVSession
    ) async throws(WriteBackError) -> CardWriteResult {
        for _ in 0..<2 {
            let got = try await send(session, "GET", card, headers: [], body: nil)
            if got.status == 404 || got.status == 410 { throw .gone(location: shown) }
            guard got.status == 200 else { throw .connection(WebDAV.failure(got, card)) }
            // A weak ETag never matches If-Match (RFC 9110, 13.1.1): every PUT would be a 412.
            guard let etag = got.etag, !etag.isEmpty, !etag.hasPrefix("W/") else { throw .noETag(url: shown) }
            let edit: VCardBirthdayEdit.Edit
            do {
                edit = try VCardBirthdayEdit.edit([UInt8](got.body), personID: personID, birthday: birthday)
            } catch {
                throw .edit(location: shown, error)
            }
            guard case .edited(let bytes) = edit else { return .cardHasBirthday }
            await beforePut()
            let put = try await send(session, "PUT", card, headers: [("If-Match", etag)], body: bytes)
            switch put.status {
            case 200, 201, 204: return .written
            case 412: continue
            case 404, 410: throw .gone(location: shown)
            default: throw .connection(WebDAV.failure(put, card))
            }
        }
        throw .changedMeanwhile(location: shown)
    }

    private func send(
        _ session: DAVSession,
        _ method: String,
        _ url: URL,
        headers: [(String, String)],
        body: [UInt8]?
    ) async throws(WriteBackError)
        -> DAVSession.Reply
    {
        do {
            return try await session.send(method, url, depth: nil, headers: headers, body: body, contentType: "text/vcard; charset=utf-8")
        } catch {
            throw .connection(error)
        }
    }
}
