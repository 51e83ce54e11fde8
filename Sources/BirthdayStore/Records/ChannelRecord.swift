import BirthdayCore
import Foundation
import GRDB

extension RemoteChannel.Kind: DatabaseValueConvertible {}
extension ChannelStatus.Failure: DatabaseValueConvertible {}

/// A row of the `channel` table (migrations `v8-channels`, `v9-channel-token`,
/// `v16-channel-consent`): a channel the user added by name.
struct ChannelRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "channel"

    var name: String
    var kind: RemoteChannel.Kind
    var target: String
    var fromAddress: String?
    var sendmail: String?
    /// Migration `v9-channel-token`.
    var tokenCommand: String?
    var createdAt: Double
    /// Whether it is on (migration `v16-channel-consent`; `settings set channels` turns it off).
    var enabled: Bool

    init(_ channel: RemoteChannel, createdAt: Date) {
        name = channel.name
        kind = channel.kind
        target = channel.target
        fromAddress = channel.from
        sendmail = channel.sendmail
        tokenCommand = channel.tokenCommand
        self.createdAt = createdAt.timeIntervalSince1970
        enabled = channel.isOn
    }

    var channel: RemoteChannel {
        RemoteChannel(name: name, kind: kind, target: target, from: fromAddress, sendmail: sendmail, tokenCommand: tokenCommand, isOn: enabled)
    }

    /// Every added channel, oldest first.
    static func all(_ db: Database) throws -> [RemoteChannel] {
        try ChannelRecord.order(Column("createdAt"), Column("name")).fetchAll(db).map(\.channel)
    }

    /// The added channels that deliver: on, and not paused.
    static func delivering(_ db: Database) throws -> [RemoteChannel] {
        let states = try ChannelStateRecord.all(db)
        return try all(db).filter { $0.isOn && states[$0.name]?.paused != true }
    }

    /// Which channels deliver under `settings` and `status` (``ChannelConsent``).
    static func consent(settings: Settings, status: AuthorizationStatus, _ db: Database) throws -> ChannelConsent {
        ChannelConsent(status: status, builtIn: settings.channels, added: try delivering(db).map(\.name))
    }

    /// Turns on the added channels in `on` and off every other one.
    static func setOn(_ on: Set<String>, _ db: Database) throws {
        try ChannelRecord.updateAll(db, Column("enabled").set(to: false))
        try ChannelRecord.filter(keys: on).updateAll(db, Column("enabled").set(to: true))
    }
}

/// A row of the `channelState` table (migrations `v8-channels`, `v16-channel-consent`): how one
/// channel, built-in or added, has fared.
struct ChannelStateRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "channelState"

    var name: String
    var lastSuccess: Double?
    var lastError: String?
    var lastErrorAt: Double?
    /// Migration `v16-channel-consent`.
    var lastFailure: ChannelStatus.Failure?
    var refusals: Int
    var paused: Bool

    init(name: String, _ status: ChannelStatus) {
        self.name = name
        lastSuccess = status.lastSuccess?.timeIntervalSince1970
        lastError = status.lastError
        lastErrorAt = status.lastErrorAt?.timeIntervalSince1970
        lastFailure = status.lastFailure
        refusals = status.refusals
        paused = status.paused
    }

    var status: ChannelStatus {
        ChannelStatus(
            lastSuccess: lastSuccess.map(Date.init(timeIntervalSince1970:)),
            lastError: lastError,
            lastErrorAt: lastErrorAt.map(Date.init(timeIntervalSince1970:)),
            lastFailure: lastFailure,
            refusals: refusals,
            paused: paused
        )
    }

    /// Every channel's status by name (a channel never tried has none).
    static func all(_ db: Database) throws -> [String: ChannelStatus] {
        var result: [String: ChannelStatus] = [:]
        for row in try ChannelStateRecord.fetchAll(db) { result[row.name] = row.status }
        return result
    }

    /// Records the outcome of one attempt through `name` at `instant`.
    static func record(_ name: String, error: DeliveryError?, at instant: Date, _ db: Database) throws {
        let old = try ChannelStateRecord.fetchOne(db, key: name)?.status ?? ChannelStatus()
        try ChannelStateRecord(name: name, old.recording(error, at: instant)).save(db)
    }
}
