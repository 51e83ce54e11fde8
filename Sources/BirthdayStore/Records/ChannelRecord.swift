import BirthdayCore
import Foundation
import GRDB

extension RemoteChannel.Kind: DatabaseValueConvertible {}

/// A row of the `channel` table (migrations `v8-channels`, `v9-channel-token`):
/// a channel the user added by name.
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

    init(_ channel: RemoteChannel, createdAt: Date) {
        name = channel.name
        kind = channel.kind
        target = channel.target
        fromAddress = channel.from
        sendmail = channel.sendmail
        tokenCommand = channel.tokenCommand
        self.createdAt = createdAt.timeIntervalSince1970
    }

    var channel: RemoteChannel {
        RemoteChannel(name: name, kind: kind, target: target, from: fromAddress, sendmail: sendmail, tokenCommand: tokenCommand)
    }

    /// Every added channel, oldest first.
    static func all(_ db: Database) throws -> [RemoteChannel] {
        try ChannelRecord.order(Column("createdAt"), Column("name")).fetchAll(db).map(\.channel)
    }
}

/// A row of the `channelState` table (migrations `v8-channels`, `v16-channel-last-refused`): how one
/// channel, built-in or added, has fared.
struct ChannelStateRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "channelState"

    var name: String
    var lastSuccess: Double?
    var lastError: String?
    var lastErrorAt: Double?
    var refusals: Int
    var paused: Bool
    /// Migration `v16-channel-last-refused`.
    var lastErrorRefused: Bool

    init(name: String, _ status: ChannelStatus) {
        self.name = name
        lastSuccess = status.lastSuccess?.timeIntervalSince1970
        lastError = status.lastError
        lastErrorAt = status.lastErrorAt?.timeIntervalSince1970
        refusals = status.refusals
        paused = status.paused
        lastErrorRefused = status.lastErrorRefused
    }

    var status: ChannelStatus {
        ChannelStatus(
            lastSuccess: lastSuccess.map(Date.init(timeIntervalSince1970:)),
            lastError: lastError,
            lastErrorAt: lastErrorAt.map(Date.init(timeIntervalSince1970:)),
            refusals: refusals,
            paused: paused,
            lastErrorRefused: lastErrorRefused
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
