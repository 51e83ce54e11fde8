import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

/// The team rooms (`birthdays announce`) with their URLs: the row in the
/// store and the URL's file (``ChannelSecrets``) are made and removed together,
/// here only, as ``AddedChannels`` does for channels; and the sink that
/// delivers a room's message (``sink(for:databasePath:environment:clock:)``).
///
/// Rules of ``add(_:url:now:)``: the URL is staged beside its place, an
/// Apprise URL checked there by `apprise --dry-run`, and moved into place
/// only once the row is stored; whatever fails, no row without its file and
/// no file without its row is left behind, and an existing room's file is
/// never replaced.
package struct AnnounceRooms: Sendable {
    package let database: AppDatabase
    /// What `apprise` runs with.
    package let environment: [String: String]

    package init(database: AppDatabase, environment: [String: String]) {
        self.database = database
        self.environment = environment
    }

    package var secrets: ChannelSecrets { ChannelSecrets(databasePath: database.path) }

    /// Stores `room` and its `url`.
    package func add(_ room: AnnounceRoom, url: String, now: Date) async throws(AddedChannels.AddError) -> AnnounceRoom {
        let existing: [AnnounceRoom]
        do {
            existing = try await database.announceRooms()
        } catch {
            throw .store(error)
        }
        if existing.contains(where: { $0.name == room.name }) { throw .roomTaken(room.name) }
        let staged: ChannelSecrets.Staged
        do throws(ChannelSecretError) {
            staged = try secrets.stage(url, for: .room(name: room.name))
        } catch {
            throw .secret(error)
        }
        try await AddedChannels.store(
            staged,
            checkedByApprise: room.kind == .apprise,
            environment: environment,
            taken: .roomTaken(room.name),
            insert: { () async throws(StoreError) -> Bool in try await database.addAnnounceRoom(room, now: now) },
            undo: { _ = try? await database.removeAnnounceRoom(named: room.name) }
        )
        return room
    }

    /// Removes room `name` and its URL; whether there was one.
    package func remove(named name: String) async throws(StoreError) -> Bool {
        guard try await database.removeAnnounceRoom(named: name) else { return false }
        secrets.remove(.room(name: name))
        return true
    }

    /// The sink that delivers `room`'s messages: Apprise with the URL's file, or the webhook through the helper.
    package static func sink(
        for room: AnnounceRoom,
        databasePath: String,
        environment: [String: String],
        clock: any Clock<Duration>
    ) -> any NotificationSink {
        let file = ChannelSecrets(databasePath: databasePath).roomFile(name: room.name)
        switch room.kind {
        case .apprise:
            return AppriseRoom(channel: AppriseChannel(name: room.name, configuration: file, environment: environment, clock: clock))
        case .webhook:
            return WebhookChannel(name: room.name, urlFile: file, environment: environment, clock: clock)
        }
    }

    /// What the delivery engine delivers a room's messages with (the daemon's `DeliveryEngine.RoomFactory`).
    package static func factory(
        databasePath: String,
        environment: [String: String],
        clock: any Clock<Duration>
    ) -> @Sendable (AnnounceRoom) -> any NotificationSink {
        { room in sink(for: room, databasePath: databasePath, environment: environment, clock: clock) }
    }
}
