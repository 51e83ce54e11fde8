import Synchronization

/// The events a daemon loop has yet to handle, and the ``Alarm`` that wakes
/// it: ``post(_:)`` from any thread queues one and rings; the loop
/// ``take()``s them all at the top of each turn and sleeps with ``sleep(_:)``
/// only while none are waiting (an event posted while it works makes that
/// sleep return at once). The source and publish followers run on it.
public final class Inbox<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])
    private let alarm = Alarm()

    public init() {}

    /// Queues `event` and wakes the loop.
    public func post(_ event: Event) {
        events.withLock { $0.append(event) }
        alarm.ring()
    }

    /// Queues `event` before every waiting one, without a ring (the loop's first turn).
    public func postFirst(_ event: Event) {
        events.withLock { $0.insert(event, at: 0) }
    }

    /// Every waiting event, in order; the inbox is empty after.
    public func take() -> [Event] {
        events.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    /// Whether no event waits.
    public var isEmpty: Bool { events.withLock(\.isEmpty) }

    /// Sleeps as ``Alarm/sleep(_:)`` does: with `body` (a clock sleep), or until a post.
    @discardableResult
    public func sleep(_ body: (@Sendable () async throws -> Void)?) async -> Bool {
        await alarm.sleep(body)
    }
}
