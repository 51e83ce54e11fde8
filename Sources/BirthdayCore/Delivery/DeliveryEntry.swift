import Foundation

/// One row of the delivery ledger: a reminder occurrence that became due (or
/// was snoozed or dismissed) and what happened to it.
///
/// The ledger key is (``notificationID``, ``occurrenceDate``): the same
/// reminder for the same birthday is recorded once, whatever reschedules,
/// restarts or second daemons do. See the daemon's `DeliveryEngine` for the rules.
public struct DeliveryEntry: Hashable, Sendable {
    /// Where a ledger row stands.
    public enum State: String, Sendable, Hashable, CaseIterable, Codable {
        /// Due (or snoozed until ``DeliveryEntry/fireAt``), not yet handed to a channel.
        case queued
        /// Claimed by a daemon that is handing it to the channels right now.
        case sending
        /// Every channel took it.
        case delivered
        /// At least one channel failed; tried again at ``DeliveryEntry/nextAttemptAt``.
        case retrying
        /// Channels kept failing until the end of the due day.
        case failed
        /// It came due while the machine was asleep or the daemon stopped, and
        /// the local day had ended before it could be sent.
        case missed
        /// A daemon stopped (crashed or was killed) while sending it; not sent again.
        case interrupted
        /// The user dismissed it; never sent (again).
        case dismissed
        /// The user snoozed it before it fired: its `-snooze` copy fires
        /// instead, later; this row only keeps it from firing on time.
        case snoozed
    }

    public var notificationID: String
    public var occurrenceDate: LocalDate
    public var personID: String
    public var kind: EventKind
    /// What the row is (``DeliveryKind``): a reminder, a digest, a room's message, an invitation's notice.
    public var deliveryKind: DeliveryKind
    public var timing: NotificationRequest.Timing
    /// The instant it was due (for a snooze, the end of the snooze).
    public var fireAt: Date
    public var title: String
    public var body: String
    /// The desktop's hints (``NotificationRequest/userInfo``).
    public var userInfo: [String: String]
    public var state: State
    /// Delivered after its instant (the machine slept, the daemon was stopped, or a retry).
    public var late: Bool
    public var attempts: Int
    public var nextAttemptAt: Date?
    /// The channels still to deliver to while retrying; `nil` means all.
    public var channels: [String]?
    /// The last failure, a sentence without names.
    public var lastError: String?
    public var deliveredAt: Date?
    public var updatedAt: Date

    /// A queued entry for a due request.
    public init(queued request: NotificationRequest, at now: Date) {
        notificationID = request.id
        occurrenceDate = request.occurrenceDate
        personID = request.personID
        kind = request.kind
        deliveryKind = request.deliveryKind
        timing = request.timing
        fireAt = request.fireAt
        title = request.title
        body = request.body
        userInfo = request.userInfo
        state = .queued
        late = false
        attempts = 0
        nextAttemptAt = nil
        channels = nil
        lastError = nil
        deliveredAt = nil
        updatedAt = now
    }

    /// The reminder the channels get, with its zone and late flag.
    public func reminder(timeZone: TimeZone, late: Bool, publicIDs: PublicID) -> Reminder {
        var reminder = Reminder(
            id: notificationID,
            personID: personID,
            kind: kind,
            when: timing,
            fireAt: fireAt,
            timeZone: timeZone,
            title: title,
            body: body,
            late: late,
            occurrenceDate: occurrenceDate,
            logID: publicIDs.reminder(notificationID),
            digest: deliveryKind.digest
        )
        reminder.personZone = personZone
        return reminder
    }

    /// The request this entry was made from (used for snoozes).
    public var request: NotificationRequest {
        var request = NotificationRequest(
            personID: personID,
            kind: kind,
            timing: timing,
            fireAt: fireAt,
            occurrenceDate: occurrenceDate,
            title: title,
            body: body,
            deliveryKind: deliveryKind,
            userInfo: userInfo
        )
        request.id = notificationID
        return request
    }
}
