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

    /// Which channels deliver now (``ChannelConsent``), with the settings and
    /// the permission it was worked out from, read together.
    package func channelConsent() async throws(StoreError) -> (settings: Settings, status: AuthorizationStatus, consent: ChannelConsent) {
        try await read { db in
            let settings = try SettingRecord.settings(db)
            let status = try SettingRecord.authorizationStatus(db)
            return (settings, status, try ChannelRecord.consent(settings: settings, status: status, db))
        }
    }

    /// Turns on exactly the channels `choice` names, built-in (the `channels`
    /// setting) and added alike, and every other one off, in one
    /// transaction; the new settings.
    @discardableResult
    package func setChannelsOn(_ choice: ChannelChoice) async throws(StoreError) -> Settings {
        try await write { db in
            var settings = try SettingRecord.settings(db)
            settings.channels = choice.builtIn
            try SettingRecord.set(settings.text(for: .channels), for: SettingKey.channels.rawValue, db)
            try ChannelRecord.setOn(choice.added, db)
            return settings
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
