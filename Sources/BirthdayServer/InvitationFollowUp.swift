import BirthdayCore
import BirthdayStore
import Logging
import ServiceLifecycle

/// What the owner's program does after an invitation's answer gave its date
/// to a person already there (a link with `--auto-accept`): the CLI writes
/// it to their card (`CardWriteBack`, which this target does not import, so
/// it is given as ``Hook``).
///
/// ## Rules
/// - The server's source posts a date (``post(_:)``) once the answer's
///   transaction is committed, and returns: the reply never waits for the
///   hook, so a slow CardDAV server does not hold up the thank-you page, and
///   nothing waits on an event loop.
/// - The dates are handed to the hook one at a time, in the order they came,
///   by ``run()``: run it in the same `ServiceGroup` as the server and before
///   it, so that a graceful shutdown stops the server first and the dates
///   its last answers gave are still handed over. Up to ``capacity`` wait;
///   one more is not written to a card, and is logged.
/// - A date that never reaches a card loses nothing: it is in the database,
///   where the answer put it. The log says how many were left out, never
///   whose or which date.
package final class InvitationFollowUp: Service, Sendable {
    /// Writes `date` to the card of the person `personID`: what the hook is given.
    package typealias Hook = @Sendable (_ personID: String, _ date: EventDate) async -> Void

    /// How many dates may wait for the hook.
    package static let capacity = 64

    private let hook: Hook
    private let dates: AsyncStream<InvitationDateGiven>
    private let continuation: AsyncStream<InvitationDateGiven>.Continuation
    private let logger: Logger

    package init(logger: Logger, _ hook: @escaping Hook) {
        self.hook = hook
        self.logger = logger
        (dates, continuation) = AsyncStream.makeStream(of: InvitationDateGiven.self, bufferingPolicy: .bufferingOldest(Self.capacity))
    }

    /// Queues `given` for the hook and returns at once.
    package func post(_ given: InvitationDateGiven) {
        switch continuation.yield(given) {
        case .enqueued: break
        case .dropped: logger.warning("a date an invitation's answer gave is kept here only: too many wait to be written to cards")
        case .terminated: logger.notice("a date an invitation's answer gave is kept here only: the server is stopping")
        @unknown default: break
        }
    }

    /// Hands each posted date to the hook, one at a time, until a graceful
    /// shutdown, after which the dates already posted are still handed over.
    package func run() async {
        await withGracefulShutdownHandler {
            for await given in dates { await hook(given.personID, given.date) }
        } onGracefulShutdown: { [continuation] in
            continuation.finish()
        }
    }
}
