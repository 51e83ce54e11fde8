import Foundation
import GRDB

/// A row of the `delivery` table (migration `v3-delivery`).
struct DeliveryRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "delivery"

    var notificationId: String
    var occurrenceDate: String
    var personId: String
    var kind: String
    var whenKind: String
    var fireAt: Double
    var title: String
    var body: String
    var userInfo: String
    var state: String
    var late: Bool
    var attempts: Int
    var nextAttemptAt: Double?
    var channels: String?
    var lastError: String?
    var deliveredAt: Double?
    var updatedAt: Double
}

extension DeliveryRecord {
    init(_ entry: DeliveryEntry) {
        notificationId = entry.notificationID
        occurrenceDate = entry.occurrenceDate.description
        personId = entry.personID
        kind = entry.kind.rawValue
        whenKind = entry.timing.rawValue
        fireAt = entry.fireAt.timeIntervalSince1970
        title = entry.title
        body = entry.body
        userInfo = PendingNotificationRecord.encode(entry.userInfo)
        state = entry.state.rawValue
        late = entry.late
        attempts = entry.attempts
        nextAttemptAt = entry.nextAttemptAt?.timeIntervalSince1970
        channels = entry.channels?.joined(separator: ",")
        lastError = entry.lastError
        deliveredAt = entry.deliveredAt?.timeIntervalSince1970
        updatedAt = entry.updatedAt.timeIntervalSince1970
    }

    /// The entry, or `nil` for a row this version cannot read (left alone).
    var entry: DeliveryEntry? {
        guard let kind = EventKind(rawValue: kind), let timing = NotificationRequest.Timing(rawValue: whenKind),
              let day = LocalDate(iso: occurrenceDate), let state = DeliveryEntry.State(rawValue: state)
        else { return nil }
        var request = NotificationRequest(
            personID: personId, kind: kind, timing: timing, fireAt: Date(timeIntervalSince1970: fireAt), occurrenceDate: day,
            title: title, body: body, userInfo: PendingNotificationRecord.decode(userInfo)
        )
        request.id = notificationId
        var entry = DeliveryEntry(queued: request, at: Date(timeIntervalSince1970: updatedAt))
        entry.state = state
        entry.late = late
        entry.attempts = attempts
        entry.nextAttemptAt = nextAttemptAt.map(Date.init(timeIntervalSince1970:))
        entry.channels = channels.map { $0.split(separator: ",").map(String.init) }
        entry.lastError = lastError
        entry.deliveredAt = deliveredAt.map(Date.init(timeIntervalSince1970:))
        return entry
    }
}
