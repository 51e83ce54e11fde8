import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

extension BirthdaysCommand.Sources {
    struct SourcesAdd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a source and sync it once.",
            discussion: """
                LOCATION is a .vcf or .csv file, a vdir folder (one .vcf per contact, as vdirsyncer writes), or the \
                http(s):// URL of a CardDAV address book. The URL of a server or of an account (principal) adds \
                every address book found there (RFC 6764 discovery: /.well-known/carddav, current-user-principal, \
                addressbook-home-set), each named after its display name. Only the password command is stored: it is \
                run with /bin/sh -c at each sync, and the first line it prints is the password.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("A file, a vdir folder, or an http(s):// URL.", valueName: "location"))
        var location: String

        @Option(help: "The source's name (default: the file or folder name, or the address book's display name).")
        var name: String?

        @Option(help: "The CardDAV username.")
        var username: String?

        @Option(help: ArgumentHelp("A command that prints the CardDAV password, such as 'pass show dav'.", valueName: "command"))
        var passwordCommand: String?

        @Flag(help: "Print the first sync's report as JSON (as 'sources sync --json').")
        var json = false

        func validate() throws {
            if let name, name.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--name must not be empty") }
            if let name, !SafeText.isSafeLine(name) {
                throw ValidationError("--name must be one line, without control characters or spaces around it")
            }
            if let scheme = SourcesAdd.otherScheme(location) {
                throw ValidationError(
                    "'\(SafeText.line(location))' is not an http(s) URL or a path: a source is a CardDAV server "
                        + "(https://…), a .vcf or .csv file or a vdir folder, not \(scheme)://"
                )
            }
            if !SourcesAdd.isURL(location), username != nil || passwordCommand != nil {
                throw ValidationError("--username and --password-command are for CardDAV URLs only")
            }
        }

        /// The scheme of `text` when it is a URL (`scheme://…`) of another
        /// scheme than http and https, such as `gopher`; `nil` for an http(s)
        /// URL or a path.
        static func otherScheme(_ text: String) -> String? {
            guard let range = text.range(of: "://"), !isURL(text) else { return nil }
            let scheme = text[..<range.lowerBound]
            guard let first = scheme.first, first.isASCII, first.isLetter,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            else { return nil }
            return String(scheme)
        }

        static func isURL(_ text: String) -> Bool {
            let lower = text.lowercased()
            return lower.hasPrefix("http://") || lower.hasPrefix("https://")
        }

        func run() async throws {
            let context = try Context(global)
            let (sources, password) = try await SourcesAdd.isURL(location) ? remoteSources(context) : ([localSource()], nil)
            // Every name is checked before anything is added.
            let taken = Set(try await context.database.sources().map(\.name))
            if let clash = sources.first(where: { taken.contains($0.name) }) {
                throw CLIError(SourceError.duplicateName(name: clash.name).description)
            }
            var added: [Source] = []
            do {
                for source in sources { added.append(try await context.database.addSource(source, now: context.now)) }
            } catch {
                throw CLIError(error.description)
            }
            var reports: [SourceSyncReport] = []
            for source in added {
                reports.append(await context.sourceSync(password: password).sync(source))
            }
            try await SourcesOutput.finish(reports, json: json, context: context, added: true)
        }

        /// A file or vdir source for a path that exists.
        func localSource() throws -> Source {
            let url = URL(fileURLWithPath: location).standardizedFileURL
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw CLIError("cannot follow \(location): no such file or folder")
            }
            let kind: SourceKind = isDirectory.boolValue ? .vdir : .file
            let fallback = kind == .vdir ? url.lastPathComponent : url.deletingPathExtension().lastPathComponent
            return Source(name: name ?? fallback, kind: kind, location: url.path)
        }

        /// The address books behind a URL, one source each, and the password used to find them.
        func remoteSources(_ context: Context) async throws -> ([Source], String?) {
            guard var components = URLComponents(string: location), components.host?.isEmpty == false else {
                throw CLIError("cannot follow \(location): not a URL")
            }
            if components.password != nil {
                throw CLIError("cannot follow the URL: it holds a password; give it with --password-command instead")
            }
            let user = username ?? components.user
            components.user = nil
            let url = components.string ?? location
            var password: String?
            if let passwordCommand {
                do {
                    password = try await PasswordCommand.run(passwordCommand, environment: context.environment)
                } catch {
                    throw CLIError(error.description)
                }
            }
            let books: [AddressBook]
            do {
                books = try await NetworkHelper(database: context.database.path, environment: context.environment, password: password)
                    .discover(url, username: user)
            } catch {
                throw CLIError(error.description)
            }
            if name != nil && books.count > 1 {
                throw CLIError(
                    "\(url) has \(books.count) address books (\(books.map(\.suggestedName).joined(separator: ", "))); "
                        + "--name names one: add them without --name, or one at a time by their URLs"
                )
            }
            // Two books with the same display name are told apart by their paths.
            let names = books.map(\.suggestedName)
            let sources = books.map { book in
                var chosen = name ?? book.suggestedName
                if names.filter({ $0 == chosen }).count > 1 {
                    chosen += " (" + SafeText.line(URL(string: book.url)?.lastPathComponent ?? book.url) + ")"
                }
                return Source(name: chosen, kind: .carddav, location: book.url, username: user, passwordCommand: passwordCommand)
            }
            return (sources, password)
        }
    }
}
