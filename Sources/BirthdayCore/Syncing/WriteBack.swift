/// What became of writing a birthday back to a person's card (the use
/// case `CardWriteBack`): the date the user accepted goes to the card in the
/// vdir folder or CardDAV book that brought the person, so the phone's
/// contacts get it too. The date is always kept in the database first; a
/// write-back that fails loses nothing.
public enum WriteBackOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The card in the source of this name has the birthday now.
    case written(source: String)
    /// No followed source has a card of the person (an import brought them, or nobody did).
    case noCard
    /// Only a file source has the person: a file the owner exports from
    /// elsewhere, which would overwrite the date at its next export; nothing is written.
    case fileSourceOnly(source: String)
    /// The card has a birthday of its own, which wins; nothing is written.
    case cardHasBirthday(source: String)
    /// The card could not be written.
    case failed(source: String, WriteBackError)

    /// One line, naming the source but never the person or the date.
    public var description: String {
        switch self {
        case .written(let source): "the birthday was written to the card in '\(SafeText.quoted(source))'"
        case .noCard: "no followed address book has a card of this person; the birthday is kept here only"
        case .fileSourceOnly(let source):
            "the card is in the file source '\(SafeText.quoted(source))', which is exported from elsewhere; the birthday is kept here only"
        case .cardHasBirthday(let source): "the card in '\(SafeText.quoted(source))' has a birthday of its own, which was left as it is"
        case .failed(let source, let error): "the birthday could not be written to the card in '\(SafeText.quoted(source))': \(error)"
        }
    }
}

/// What a card that was not written met: each case reads as one sentence
/// and names no person and no date.
public enum WriteBackError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The card's bytes could not take the birthday (``VCardEditError``).
    case edit(location: String, VCardEditError)
    /// The card changed between reading it and writing it, twice (a vdir
    /// file's bytes, or a CardDAV card's ETag: HTTP 412).
    case changedMeanwhile(location: String)
    /// The card is no longer there.
    case gone(location: String)
    /// The vdir file could not be read or replaced.
    case cannotWrite(path: String, reason: String)
    /// The server's answer to the card's GET has no ETag, or a weak one (which never matches `If-Match`), so no write could be made safe.
    case noETag(url: String)
    /// The network, the server or the password command failed (``RemoteError``).
    case connection(RemoteError)
    /// The source's location cannot be followed (not an http(s) URL).
    case invalidLocation(location: String, reason: String)
    /// The network helper could not run or gave no report, or the write needs what is missing (a database file).
    case unavailable(reason: String)
    /// The database failed; the store's own sentence.
    case store(String)

    public var description: String {
        switch self {
        case .edit(let location, let error): "\(SafeText.quoted(location)): \(error)"
        case .changedMeanwhile(let location):
            "\(SafeText.quoted(location)) changed twice while the birthday was being written; nothing was written, try again later"
        case .gone(let location): "\(SafeText.quoted(location)) is no longer there; the next sync will notice"
        case .cannotWrite(let path, let reason): "cannot write \(SafeText.quoted(path)): \(reason)"
        case .noETag(let url): "\(SafeText.quoted(url)) sent the card without a strong ETag, so it cannot be changed safely"
        case .connection(let error): error.description
        case .invalidLocation(let location, let reason): SafeText.quoted("cannot follow \(location): \(reason)")
        case .unavailable(let reason): SafeText.quoted(reason)
        case .store(let reason): SafeText.quoted(reason)
        }
    }
}

/// What the `birthdays-network` helper did to a CardDAV card (its `write-birthday` reply).
public enum CardWriteResult: String, Sendable, Equatable, Codable {
    /// The card was written with the birthday.
    case written
    /// The card has a birthday of its own; nothing was written.
    case cardHasBirthday
}

/// What `birthdays` sends the helper's `write-birthday` on its standard
/// input (never in its arguments: the date is personal, the password
/// secret): everything the helper needs, so it opens no database.
public struct CardWriteRequest: Sendable, Codable {
    /// The address book's URL (the source's location), which ``href`` is resolved against.
    public var book: String
    public var username: String?
    public var href: String
    public var personID: String
    /// ``EventDate/description``: `YYYY-MM-DD` or `--MM-DD`.
    public var birthday: String
    /// The password the source's command printed, read by the caller (`nil`: the book needs none).
    public var password: String?

    public init(book: String, username: String?, href: String, personID: String, birthday: EventDate, password: String?) {
        self.book = book
        self.username = username
        self.href = href
        self.personID = personID
        self.birthday = birthday.description
        self.password = password
    }

    /// ``birthday`` as a date, or `nil` when it is not one.
    public var date: EventDate? {
        if case .date(let date) = DateValue.vCard(birthday) { return date }
        return nil
    }
}
