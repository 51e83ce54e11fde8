import Foundation
import GRDB

/// A row of the `pendingNotification` table.
struct PendingNotificationRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pendingNotification"

    var id: String
    var personId: String
    var kind: String
    var whenKind: String
    var fireAt: Double
    var occurrenceDate: String
    var title: String
    var body: String
    var userInfo: String

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let fireAt = Column(CodingKeys.fireAt)
    }
}

extension PendingNotificationRecord {
    init(_ request: NotificationRequest) {
        id = request.id
        personId = request.personID
        kind = request.kind.rawValue
        whenKind = request.timing.rawValue
        fireAt = request.fireAt.timeIntervalSince1970
        occurrenceDate = request.occurrenceDate.description
        title = request.title
        body = request.body
        userInfo = PendingNotificationRecord.encode(request.userInfo)
    }

    /// The request, or `nil` for a row this version cannot read (a kind or
    /// timing added by a newer version); such rows are left alone.
    var request: NotificationRequest? {
        guard let kind = EventKind(rawValue: kind), let timing = NotificationRequest.Timing(rawValue: whenKind),
              let day = LocalDate(iso: occurrenceDate)
        else { return nil }
        var request = NotificationRequest(
            personID: personId,
            kind: kind,
            timing: timing,
            fireAt: Date(timeIntervalSince1970: fireAt),
            occurrenceDate: day,
            title: title,
            body: body,
            userInfo: PendingNotificationRecord.decode(userInfo)
        )
        request.id = id
        return request
    }

    static func encode(_ info: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(info) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }
}
