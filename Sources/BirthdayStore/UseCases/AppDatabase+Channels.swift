import BirthdayCore
import Foundation
import GRDB

/// The channels the user added, and how every channel has fared.
extension AppDatabase {
    /// Every added channel, oldest first.
    package func remoteChannels() async throws(StoreError) -> [RemoteChannel] {
        try await read { db in try ChannelRecord.all(db) }
    }

    /// Every channel's status by name, built-in or added (a channel never tried has none).
    package func channelStatuses() async throws(StoreError) -> [String: ChannelStatus] {
        try await read { db in try ChannelStateRecord.all(db) }
    }

    /// Adds `channel`; false when a channel of that name exists (nothing is written then).
    package func addChannel(_ channel: RemoteChannel, now: Date) async throws(StoreError) -> Bool {
        try await write { db -> Bool in
            guard try ChannelRecord.fetchOne(db, key: channel.name) == nil else { return false }
            try ChannelRecord(channel, createdAt: now).insert(db)
            _ = try ChannelStateRecord.deleteOne(db, key: channel.name)
            return true
        }
    }

    /// Removes the added channel `name` and its status; whether there was one.
    package func removeChannel(named name: String) async throws(StoreError) -> Bool {
        try await write { db -> Bool in
            _ = try ChannelStateRecord.deleteOne(db, key: name)
            return try ChannelRecord.deleteOne(db, key: name)
        }
    }

    /// Records how one attempt through each channel ended (`nil`: delivered), at `instant`:
    /// a success resumes a paused channel, ``ChannelStatus/pauseAfter`` refusals in a row pause it.
    package func recordChannelOutcomes(_ outcomes: [(channel: String, error: DeliveryError?)], at instant: Date) async throws(StoreError) {
        guard !outcomes.isEmpty else { return }
        try await write { db in
            for outcome in outcomes { try ChannelStateRecord.record(outcome.channel, error: outcome.error, at: instant, db) }
        }
    }
}
