import BirthdayCore
import Foundation
import GRDB

extension DeliveryRecord {
    /// The rows of notification `notificationID` not delivered yet (queued,
    /// or retrying on some channels): an invitation's day messages that may
    /// still change (``AppDatabase/repointInvitationNotices(invitationID:systemLocale:_:)``).
    static func undelivered(notificationID: String, _ db: Database) throws -> [DeliveryRecord] {
        try filter(Columns.notificationId == notificationID && [DeliveryEntry.State.queued, .retrying].contains(Columns.state)).fetchAll(db)
    }

    /// Gives the row of `record`'s key the words, kind and hints of `request`.
    static func rewrite(_ record: DeliveryRecord, as request: NotificationRequest, _ db: Database) throws {
        var changed = record
        changed.title = request.title
        changed.body = request.body
        changed.userInfo = request.userInfo
        changed.deliveryKind = request.deliveryKind.storedValue
        try changed.update(db)
    }

    /// Removes the row of `record`'s key.
    static func remove(_ record: DeliveryRecord, _ db: Database) throws {
        _ = try record.delete(db)
    }
}
