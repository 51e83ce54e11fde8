import BirthdayCore
import Foundation

/// The words of the messages that tell the owner about answers to an
/// invitation (``InvitationNotice``), in the owner's language.
extension InvitationNotice {
    /// The request that tells the owner, due at `now` on `today` (the owner's day).
    public static func request(
        answerID: Int64,
        invitationID: Int64,
        invitation: String,
        accepted: Bool,
        now: Date,
        today: LocalDate,
        in localizer: Localizer
    ) -> NotificationRequest {
        let name = SafeText.line(invitation, maxCharacters: 64)
        let body = localizer(Message(accepted ? .inviteArrivedAccepted : .inviteArrived, .text(name), .number(Int(answerID))))
        return notice(id: notificationID(invitationID: invitationID), body: body, answerID: answerID, now: now, today: today, in: localizer)
    }

    /// The request that tells the owner that link `invitationID` took its
    /// last answer (`answerID`, the `uses`-th) and is closed: its own row
    /// (``usedUpID(invitationID:)``), beside the day's message about answers.
    public static func usedUp(
        answerID: Int64,
        invitationID: Int64,
        invitation: String,
        uses: Int,
        now: Date,
        today: LocalDate,
        in localizer: Localizer
    ) -> NotificationRequest {
        let name = SafeText.line(invitation, maxCharacters: 64)
        let body = localizer(Message(.inviteUsedUp, .text(name), .number(uses)))
        return notice(id: usedUpID(invitationID: invitationID), body: body, answerID: answerID, now: now, today: today, in: localizer)
    }

    /// A message to the owner with `body`, under the notices' title, due at
    /// `now` on `today`, as ledger row `id`; it names no person.
    private static func notice(id: String, body: String, answerID: Int64, now: Date, today: LocalDate, in localizer: Localizer) -> NotificationRequest
    {
        var request = NotificationRequest(
            personID: "",
            kind: .birthday,
            timing: .dayOf,
            fireAt: now,
            occurrenceDate: today,
            title: localizer(.inviteNoticeTitle),
            body: body,
            deliveryKind: .invitationNotice(answerID: answerID),
            userInfo: [:]
        )
        request.id = id
        return request
    }
}
