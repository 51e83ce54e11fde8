import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation
import Logging

/// Writes a birthday the user accepted (from an invitation) back to the
/// person's card, so the phone's contacts get it too: the entry point of
/// the write-back. The caller stores the date in the database first; this
/// only adds it to the card, and a failure loses nothing.
///
/// ## Which card
/// The person's cards are the items of their sources (`sourcePerson`). The
/// first card (oldest source first) in a **vdir** folder or a **CardDAV**
/// book is written; a person followed from two such sources gets the date in
/// the first one, and the other source keeps the person with the date here.
/// A card in a **file** source is never written: the file is an export the
/// owner makes elsewhere, and its next export would undo it
/// (``WriteBackOutcome/fileSourceOnly(source:)``). A person no source has
/// (an import brought them) has ``WriteBackOutcome/noCard``.
///
/// ## How
/// - The card gets `BDAY` in its own vCard version, every other line as it
///   was, unless it has a birthday of its own, which wins
///   (``VCardBirthdayEdit``).
/// - A vdir file is replaced atomically, and only if it still holds what
///   was read (``LocalCardWriter``).
/// - A CardDAV card is written by the `birthdays-network` helper (so this
///   process links no HTTP stack) with `If-Match` and the card's ETag; a
///   412 reads it once more (`CardDAVWriter`). The source's password
///   command runs here, and the helper gets the book, the user name and the
///   password on its standard input: it opens no database.
/// - The source's next sync (the daemon's watcher, or `sources sync`) reads
///   the card as any edit: the same person, with the same date, nobody added.
///
/// Logs name the source and the outcome, never the person, the date or the card.
package struct CardWriteBack: Sendable {
    package let database: AppDatabase
    /// What the source's password command and the network helper inherit.
    package let environment: [String: String]
    package let logger: Logger

    package init(database: AppDatabase, environment: [String: String], logger: Logger) {
        self.database = database
        self.environment = environment
        self.logger = logger
    }

    /// Adds `birthday` to the card of the person `personID` (see the rules above).
    ///
    /// - Parameter password: a password already read for a CardDAV source (else its command is run).
    package func writeBirthday(personID: String, _ birthday: EventDate, password: String? = nil) async -> WriteBackOutcome {
        let cards: [PersonCard]
        do {
            cards = try await database.cards(ofPerson: personID)
        } catch {
            return .failed(source: "", .store(error.description))
        }
        guard let card = cards.first(where: { $0.source.kind != .file }) else {
            if let file = cards.first { return .fileSourceOnly(source: file.source.name) }
            return .noCard
        }
        let source = card.source
        let result: Result<CardWriteResult, WriteBackError>
        switch source.kind {
        case .vdir:
            result = await Blocking.run { () -> Result<CardWriteResult, WriteBackError> in
                do throws(WriteBackError) {
                    return .success(try LocalCardWriter.writeBirthday(birthday, personID: personID, folder: source.location, href: card.href))
                } catch {
                    return .failure(error)
                }
            }
        case .carddav, .file:
            do throws(WriteBackError) {
                result = .success(try await writeThroughHelper(birthday, personID: personID, card: card, password: password))
            } catch {
                result = .failure(error)
            }
        }
        let outcome: WriteBackOutcome
        switch result {
        case .success(.written): outcome = .written(source: source.name)
        case .success(.cardHasBirthday): outcome = .cardHasBirthday(source: source.name)
        case .failure(let error): outcome = .failed(source: source.name, error)
        }
        switch outcome {
        case .written: logger.info("wrote a birthday to a card of source \(source.name)")
        case .cardHasBirthday: logger.info("a card of source \(source.name) has a birthday of its own; left as it is")
        case .failed(_, let error): logger.warning("could not write a birthday to a card of source \(source.name): \(Self.logged(error))")
        default: break
        }
        return outcome
    }

    /// Writes `birthday` into a CardDAV `card` through the helper, which is
    /// given all it needs (the book, the user name, the password: `password`,
    /// else what the source's command prints, run here) and opens no database.
    private func writeThroughHelper(
        _ birthday: EventDate,
        personID: String,
        card: PersonCard,
        password: String?
    ) async throws(WriteBackError) -> CardWriteResult {
        let source = card.source
        var secret = password
        if secret == nil, let command = source.passwordCommand, !command.isEmpty {
            do throws(RemoteError) {
                secret = try await PasswordCommand.run(command, environment: environment)
            } catch {
                throw .connection(error)
            }
        }
        let helper = NetworkHelper(database: database.path, environment: environment, password: secret, logLevel: logger.logLevel.rawValue)
        return try await helper.writeBirthday(birthday, personID: personID, href: card.href, book: source.location, username: source.username)
    }

    /// The error for the log: the kind of failure, without the card's path or URL (a card's name may be a person's name).
    static func logged(_ error: WriteBackError) -> String {
        switch error {
        case .edit(_, let edit): "\(edit)"
        case .changedMeanwhile: "the card changed twice while it was being written"
        case .gone: "the card is no longer there"
        case .cannotWrite(_, let reason): reason
        case .noETag: "the server sent the card without a strong ETag"
        case .invalidLocation, .unavailable, .store: error.description
        case .connection(let error):
            switch error {
            case .network(_, let reason): "cannot reach the server: \(reason)"
            case .unauthorized: "the server refused the username or password (HTTP 401)"
            case .http(_, let status, let reason): "the server answered HTTP \(status)" + (reason.isEmpty ? "" : " \(reason)")
            case .badResponse(_, let reason): "the server sent an answer that cannot be used: \(reason)"
            case .tooLarge(_, let megabytes): "the server sent more than \(megabytes) MB for the card"
            case .passwordCommand: error.description
            }
        }
    }
}
