import ArgumentParser
import BirthdayCore
import BirthdayNetwork
import Foundation

extension NetworkHelperCommand {
    /// `birthdays-network write-birthday`: adds a birthday to one card of a
    /// CardDAV address book (``CardDAVWriter``), for `CardWriteBack`. The
    /// book, the user name, the card, the person, the date and the password
    /// (which the caller read from the source's command) come as a
    /// ``CardWriteRequest`` in JSON on standard input, never in the
    /// arguments, so the helper opens no database; one ``HelperReply`` of a
    /// ``CardWriteResult`` or a ``WriteBackError`` is printed. Nothing is
    /// logged: the card is personal.
    struct WriteBirthday: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write-birthday",
            abstract: "Add a birthday to a card of a CardDAV address book (the request as JSON on standard input)."
        )

        func run() async throws {
            NetworkHelperCommand.watchParent()
            let environment = ProcessInfo.processInfo.environment
            let input = FileHandle.standardInput.readDataToEndOfFile()
            guard let request = try? JSONDecoder().decode(CardWriteRequest.self, from: input), let birthday = request.date else {
                NetworkHelperCommand.writeReply(nil, .unavailable(reason: "the network helper could not read its request"))
                throw ExitCode(HelperExit.failed)
            }
            do throws(WriteBackError) {
                let writer = CardDAVWriter(
                    username: request.username,
                    password: request.password,
                    deadline: DAVLimits.deadline(environment: environment)
                )
                let result = try await writer.writeBirthday(birthday, personID: request.personID, href: request.href, book: request.book)
                NetworkHelperCommand.writeReply(result, nil)
            } catch {
                NetworkHelperCommand.writeReply(nil, error)
                throw ExitCode(HelperExit.failed)
            }
        }
    }

    /// ``reply(_:_:)`` for `write-birthday`, whose errors are ``WriteBackError``s.
    static func writeReply(_ value: CardWriteResult?, _ error: WriteBackError?) {
        print(HelperReply(value: value, error: error))
    }
}
