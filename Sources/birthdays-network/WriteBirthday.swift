import ArgumentParser
import BirthdayCore
import BirthdayNetwork
import BirthdayStore
import BirthdaySystem
import Foundation

extension NetworkHelperCommand {
    /// `birthdays-network write-birthday`: adds a birthday to one card of a
    /// CardDAV source (``CardDAVWriter``), for the daemon's `CardWriteBack`.
    /// The card, the person and the date (and a password already read) come
    /// as a ``CardWriteRequest`` in JSON on standard input, never in the
    /// arguments; one ``HelperReply`` of a ``CardWriteResult`` or a
    /// ``WriteBackError`` is printed. Nothing is logged: the card is personal.
    struct WriteBirthday: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write-birthday",
            abstract: "Add a birthday to a card of a CardDAV source (the request as JSON on standard input)."
        )

        @Option(help: "The database file.") var database: String
        @Option var sourceId: Int64

        func run() async throws {
            NetworkHelperCommand.watchParent()
            let environment = ProcessInfo.processInfo.environment
            let input = FileHandle.standardInput.readDataToEndOfFile()
            guard let request = try? JSONDecoder().decode(CardWriteRequest.self, from: input), let birthday = request.date else {
                NetworkHelperCommand.writeReply(nil, .unavailable(reason: "the network helper could not read its request"))
                throw ExitCode(HelperExit.failed)
            }
            let source: Source
            do {
                let store = try AppDatabase.openFile(at: database, create: false)
                guard let found = try await store.sources(counting: false).first(where: { $0.id == sourceId }) else {
                    NetworkHelperCommand.writeReply(nil, .unavailable(reason: SourceError.unknownSource(name: "#\(sourceId)").description))
                    throw ExitCode(HelperExit.failed)
                }
                source = found
            } catch let exit as ExitCode {
                throw exit
            } catch {
                NetworkHelperCommand.writeReply(nil, .store("\(error)"))
                throw ExitCode(HelperExit.failed)
            }
            do throws(WriteBackError) {
                var password = request.password
                if password == nil, let command = source.passwordCommand, !command.isEmpty {
                    do {
                        password = try await PasswordCommand.run(command, environment: environment)
                    } catch {
                        throw .connection(error)
                    }
                }
                let writer = CardDAVWriter(
                    username: source.username,
                    password: password,
                    deadline: DAVLimits.deadline(environment: environment)
                )
                let result = try await writer.writeBirthday(birthday, personID: request.personID, href: request.href, book: source.location)
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
