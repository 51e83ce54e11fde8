/// Something that shows or records a reminder: the desktop, a user's command,
/// the log, or a set of them.
///
/// Rules for implementations:
/// - `deliver` returns once the reminder is handed over (the notification
///   server accepted it, the command exited 0, the line was written) and
///   throws when the caller should retry later (see ``RetryPolicy``).
/// - Delivering the same ``Reminder/id`` again may replace the earlier
///   notification but must not fail because of it.
/// - Errors and logs never contain the reminder's title or body.
public protocol NotificationSink: Sendable {
    func deliver(_ reminder: Reminder) async throws(DeliveryError)
}
