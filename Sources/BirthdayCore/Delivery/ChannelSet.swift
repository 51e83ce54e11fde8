/// The channels a reminder goes to, delivered concurrently, each failing on
/// its own.
///
/// A failing channel does not stop the others. ``deliverEach(_:only:)``
/// reports every channel's outcome so the daemon can retry only the channels
/// that failed (the desktop notification is not shown twice because the
/// command failed); ``deliver(_:)`` throws ``DeliveryError/channelsFailed(_:)``
/// listing the failures, in the set's order.
public struct ChannelSet: NotificationSink {
    /// A channel and the name it is reported under (`desktop`, `command`, `log`).
    public struct Member: Sendable {
        public var name: String
        public var sink: any NotificationSink

        public init(name: String, sink: any NotificationSink) {
            self.name = name
            self.sink = sink
        }
    }

    /// One channel's outcome.
    public struct Outcome: Sendable, Equatable {
        public var channel: String
        /// `nil` when it delivered.
        public var error: DeliveryError?

        public init(channel: String, error: DeliveryError?) {
            self.channel = channel
            self.error = error
        }
    }

    public let members: [Member]

    public init(_ members: [Member]) { self.members = members }

    public var names: [String] { members.map(\.name) }

    /// Delivers to every member (or only those named in `only`) at the same
    /// time and returns their outcomes in the set's order.
    public func deliverEach(_ reminder: Reminder, only: Set<String>? = nil) async -> [Outcome] {
        let chosen = members.enumerated().filter { only?.contains($0.element.name) ?? true }
        var results: [Int: DeliveryError?] = [:]
        await withTaskGroup(of: (Int, DeliveryError?).self) { group in
            for (index, member) in chosen {
                group.addTask {
                    do throws(DeliveryError) {
                        try await member.sink.deliver(reminder)
                        return (index, nil)
                    } catch {
                        return (index, error)
                    }
                }
            }
            for await (index, error) in group { results[index] = error }
        }
        return chosen.map { Outcome(channel: $0.element.name, error: results[$0.offset] ?? nil) }
    }

    /// Delivers to every member.
    ///
    /// - Throws: ``DeliveryError/channelsFailed(_:)`` when at least one member failed.
    public func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        let failures = await deliverEach(reminder).compactMap { outcome in
            outcome.error.map { ChannelFailure(channel: outcome.channel, error: $0) }
        }
        if !failures.isEmpty { throw .channelsFailed(failures) }
    }
}
