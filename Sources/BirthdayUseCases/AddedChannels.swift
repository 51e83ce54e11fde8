import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

/// The channels a person adds, with their secrets: the row in the store and
/// the secret file (``ChannelSecrets``) are made and removed together, here
/// only. `channels add`, `channels remove` and the onboarding use it.
///
/// Rules of ``add(_:secret:now:)``: a secret is staged beside its place,
/// checked there (an Apprise URL by `apprise --dry-run`), and moved into
/// place only once the row is stored; when the move fails the row is taken
/// away again. Whatever fails, no row without its file and no file without
/// its row is left behind, and an existing channel's file is never replaced.
package struct AddedChannels: Sendable {
    package let database: AppDatabase
    /// What `apprise` runs with.
    package let environment: [String: String]

    package init(database: AppDatabase, environment: [String: String]) {
        self.database = database
        self.environment = environment
    }

    package var secrets: ChannelSecrets { ChannelSecrets(databasePath: database.path) }

    /// Why a channel could not be added: what the store, a file or apprise
    /// said, in one sentence (never the secret). None of these is a bad
    /// argument: each depends on what is there already.
    package enum AddError: Error, Sendable, CustomStringConvertible {
        case nameTaken(String)
        /// A team room of that name exists (``AnnounceRooms``).
        case roomTaken(String)
        case appriseRefuses
        case appriseMissing
        case secret(ChannelSecretError)
        case store(StoreError)

        package var description: String {
            switch self {
            case .nameTaken(let name): "a channel named '\(name)' exists; give this one --name, or remove that one first"
            case .roomTaken(let name): "a room named '\(name)' exists; give this one --name, or remove that one first"
            case .appriseRefuses: "apprise does not understand this URL (see its list of services: apprise --details)"
            case .appriseMissing: "the apprise program is not installed; install the Debian package apprise"
            case .secret(let error): error.description
            case .store(let error): error.description
            }
        }
    }

    /// Stores `channel` and, for a kind that has one, its `secret` (the whole
    /// Apprise or ntfy URL); the channel as stored.
    @discardableResult
    package func add(_ channel: RemoteChannel, secret: String?, now: Date) async throws(AddError) -> RemoteChannel {
        let existing: [RemoteChannel]
        do {
            existing = try await database.remoteChannels()
        } catch {
            throw .store(error)
        }
        // Checked before the secret is staged, so an existing channel's file is never touched.
        if existing.contains(where: { $0.name == channel.name }) { throw .nameTaken(channel.name) }
        var staged: ChannelSecrets.Staged?
        if RemoteChannel.hasSecretFile(channel.kind), let secret {
            do throws(ChannelSecretError) {
                staged = try secrets.stage(secret, for: .channel(name: channel.name, kind: channel.kind))
            } catch {
                throw .secret(error)
            }
        }
        try await Self.store(
            staged,
            checkedByApprise: channel.kind == .apprise,
            environment: environment,
            taken: .nameTaken(channel.name),
            insert: { () async throws(StoreError) -> Bool in try await database.addChannel(channel, now: now) },
            undo: { _ = try? await database.removeChannel(named: channel.name) }
        )
        return channel
    }

    /// The one order in which a row and its secret file are made, for added
    /// channels and team rooms alike: an Apprise secret is first checked where
    /// it is staged (`apprise --dry-run`); the row is inserted (`insert` says
    /// `false` when the name is taken: `taken` is thrown); only then is the
    /// file moved into place, and if that fails the row is removed again
    /// (`undo`). A staged file that is not committed is deleted with `staged`.
    static func store(
        _ staged: ChannelSecrets.Staged?,
        checkedByApprise: Bool,
        environment: [String: String],
        taken: AddError,
        insert: () async throws(StoreError) -> Bool,
        undo: () async -> Void
    ) async throws(AddError) {
        if checkedByApprise, let staged {
            switch await AppriseChannel.understands(configuration: staged.temporary, environment: environment) {
            case true?: break
            case false?: throw .appriseRefuses
            case nil: throw .appriseMissing
            }
        }
        let stored: Bool
        do throws(StoreError) {
            stored = try await insert()
        } catch {
            throw .store(error)
        }
        guard stored else { throw taken }
        do throws(ChannelSecretError) {
            try staged?.commit()
        } catch {
            await undo()
            throw .secret(error)
        }
    }

    /// Removes the added channel `name` and its secrets; whether there was one.
    package func remove(named name: String) async throws(StoreError) -> Bool {
        guard try await database.removeChannel(named: name) else { return false }
        secrets.remove(name: name)
        return true
    }
}
