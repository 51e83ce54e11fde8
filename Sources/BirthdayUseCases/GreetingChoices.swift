import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import Foundation

/// The greeting choices (`birthdays greet`) with their Apprise URLs: the row
/// in the store and the URL's file (``ChannelSecrets``, `ID.greeting`) are
/// made and removed together, here only; and the route a greeting takes
/// (``route(for:person:)``).
///
/// Rules of ``add(_:url:now:)``: the row is stored first (its id names the
/// file); the URL is staged beside its place, checked there by
/// `apprise --dry-run`, and moved into place; when anything after the row
/// fails, the row is removed again. No row of an Apprise greeting is left
/// without its file, and no file without its row.
package struct GreetingChoices: Sendable {
    package let database: AppDatabase
    /// What `apprise` and the mail program run with.
    package let environment: [String: String]

    package init(database: AppDatabase, environment: [String: String]) {
        self.database = database
        self.environment = environment
    }

    package var secrets: ChannelSecrets { ChannelSecrets(databasePath: database.path) }

    /// Why a greeting could not be added or sent, in one sentence (never the URL).
    package enum GreetingError: Error, Sendable, CustomStringConvertible {
        /// The person or group is greeted already.
        case taken(String)
        case appriseRefuses
        case appriseMissing
        /// No e-mail channel to send through.
        case noEmailChannel
        case secret(ChannelSecretError)
        case store(StoreError)

        package var description: String {
            switch self {
            case .taken(let who): "\(who) is greeted already; 'birthdays greet remove' it first to change how"
            case .appriseRefuses: "apprise does not understand this URL (see its list of services: apprise --details)"
            case .appriseMissing: "the apprise program is not installed; install the Debian package apprise"
            case .noEmailChannel:
                "a greeting by e-mail goes through your e-mail channel, and there is none: add it with "
                    + "'birthdays channels add email YOUR-ADDRESS --from YOUR-ADDRESS', or give the greeting --url"
            case .secret(let error): error.description
            case .store(let error): error.description
            }
        }
    }

    /// Stores `greeting` (and, for an Apprise greeting, `url` in its file);
    /// the choice as stored. `who` names the person or group in the error
    /// when they are greeted already.
    package func add(_ greeting: Greeting, url: String?, who: String, now: Date) async throws(GreetingError) -> Greeting {
        if case .email = greeting.way, try await emailChannel() == nil { throw .noEmailChannel }
        let stored: Greeting?
        do {
            stored = try await database.addGreeting(greeting, now: now)
        } catch {
            throw .store(error)
        }
        guard let stored, let id = stored.id else { throw .taken(who) }
        guard case .apprise = greeting.way, let url else { return stored }
        do throws(GreetingError) {
            let staged: ChannelSecrets.Staged
            do throws(ChannelSecretError) {
                staged = try secrets.stage(url, for: .greeting(id: id))
            } catch {
                throw .secret(error)
            }
            switch await AppriseChannel.understands(configuration: staged.temporary, environment: environment) {
            case true?: break
            case false?: throw .appriseRefuses
            case nil: throw .appriseMissing
            }
            do throws(ChannelSecretError) {
                try staged.commit()
            } catch {
                throw .secret(error)
            }
        } catch {
            _ = try? await database.removeGreeting(id: id)
            throw error
        }
        return stored
    }

    /// The e-mail channel greetings go through: the first one added; `nil` when there is none.
    package func emailChannel() async throws(GreetingError) -> RemoteChannel? {
        do {
            return try await database.remoteChannels().first { $0.kind == .email }
        } catch {
            throw .store(error)
        }
    }

    /// Removes `greeting` and its URL's file; whether there was one.
    package func remove(_ greeting: Greeting) async throws(StoreError) -> Bool {
        guard let id = greeting.id, try await database.removeGreeting(id: id) else { return false }
        secrets.remove(.greeting(id: id))
        return true
    }

    /// The route of `greeting` to `person`: by e-mail through the first
    /// e-mail channel added (`channels`) to their address (``GreetingRules/emailAddress(of:way:)``),
    /// or through the greeting's Apprise file. `to` sends it there instead
    /// (`greet test`: the owner's own address, the e-mail channel's).
    ///
    /// - Throws: ``GreetingError/noEmailChannel``, or a `nil` address is the caller's to word.
    package func route(for greeting: Greeting, person: Person, toOwner: Bool = false) async throws(GreetingError) -> GreetingSender.Route? {
        switch greeting.way {
        case .apprise:
            guard let id = greeting.id else { return nil }
            return .apprise(configuration: secrets.place(.greeting(id: id)))
        case .email:
            guard let channel = try await emailChannel() else { throw .noEmailChannel }
            let address = toOwner ? channel.target : GreetingRules.emailAddress(of: person, way: greeting.way)
            return address.flatMap(EmailAddress.init(parsing:)).map { .email(channel: channel, to: $0) }
        }
    }

    /// What the delivery engine sends a friend's greeting with (the daemon's
    /// `DeliveryEngine.GreetingSend`): the greeting's route to the friend
    /// (``route(for:person:toOwner:)``: their address through the owner's
    /// e-mail channel, or the greeting's Apprise file), its words in the
    /// greeting's language (else the `language` setting, else `systemLocale`)
    /// with the age they turn (written only where the text asks for it),
    /// the e-mail dated on the friend's clock. Never the owner's channels.
    ///
    /// A greeting that cannot go (no e-mail channel, no address) is a
    /// refusal, not retried; a store that cannot be read is retried.
    package static func sender(
        database: AppDatabase,
        environment: [String: String],
        clock: any Clock<Duration>,
        systemLocale: String?
    ) -> @Sendable (Greeting, Person, GreetingPlan.Occurrence, Settings, Date) async throws(DeliveryError) -> Void {
        let choices = GreetingChoices(database: database, environment: environment)
        return { greeting, person, occurrence, settings, now throws(DeliveryError) in
            let route: GreetingSender.Route?
            do throws(GreetingError) {
                route = try await choices.route(for: greeting, person: person)
            } catch {
                if case .noEmailChannel = error { throw .remoteRefused(channel: "greeting", reason: error.description) }
                throw .remoteUnavailable(channel: "greeting", reason: error.description)
            }
            guard let route else {
                throw .remoteRefused(
                    channel: "greeting",
                    reason: "the friend's card has no e-mail address; give one with birthdays greet add PERSON --to"
                )
            }
            let localizer = Localizer(setting: greeting.language ?? settings.language, systemLocale: systemLocale)
            let words = GreetingWords(greeting: greeting, person: person, age: occurrence.age, localizer: localizer)
            try await GreetingSender.send(words, by: route, environment: environment, now: now, timeZone: occurrence.timeZone, clock: clock)
        }
    }
}
