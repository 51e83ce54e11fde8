import Foundation

/// The delivery engine's decisions, as values: what becomes of a ledger row
/// that may be due (``before(_:decision:now:)``), and what becomes of it and
/// of each channel once the channels have reported (``after(_:outcomes:late:finishedAt:deadline:policy:)``).
/// The engine only performs them (the daemon's `DeliveryEngine`: claim,
/// fan-out, record), so every rule here is tested without a clock or a
/// database.
///
/// ## What each channel reported
/// | report | the channel | the reminder |
/// |---|---|---|
/// | delivered | never sent it again | delivered, whatever the others did |
/// | retry (a timeout, a 5xx, 429 with or without Retry-After) | retried alone after the ``RetryPolicy`` delays, not before a Retry-After | retrying while nothing delivered it |
/// | refused (``DeliveryError/isPermanent``) | not retried for this reminder | failed when every channel refused |
/// | unavailable (``DeliveryError/isUnavailable``: no desktop session or notification server) | not retried once another channel delivered; when none did, it waits for a session like a retry | as retry |
///
/// A reminder that at least one channel delivered counts as delivered: a
/// channel still retrying, one that refused, or a desktop with no session
/// is noted on the row (``DeliveryEntry/lastError``) and in the channel's
/// status, never counted as a failure of the reminder. When its due day
/// ends with channels still failing, the row stays delivered.
public enum DeliveryTransition {
    /// What a pass counts for one row.
    public enum Tally: Sendable, Hashable {
        /// A channel delivered it for the first time; `late` when after its moment.
        case delivered(late: Bool)
        /// Delivered by at least one channel now, with others left to retry.
        case deliveredRetrying(late: Bool)
        /// Nothing delivered it yet; retried later.
        case retrying
        /// No channel will deliver it.
        case failed
        /// Its day ended before it could be sent.
        case missed
        /// Its local moment has not come yet.
        case waiting
        /// Nothing to count (a retry of a reminder already counted as delivered).
        case none
    }

    /// What to do with a row before anything is sent.
    public enum Before: Sendable, Equatable {
        /// Save `entry` if its row is still in one of `from`, and count `tally`.
        case finish(DeliveryEntry, from: [DeliveryEntry.State], tally: Tally)
        /// Move the row to this instant and wait.
        case move(to: Date)
        /// Claim the row and send it; `late` when it is.
        case send(late: Bool)
    }

    /// What the channels' reports make of a claimed row.
    public struct After: Sendable, Equatable {
        /// The row to save (from `sending`).
        public var entry: DeliveryEntry
        /// What the pass counts.
        public var tally: Tally
        /// Each channel's outcome, for its ``ChannelStatus``.
        public var channels: [ChannelSet.Outcome]
        /// The failures of this attempt, in words without names, for the log; `nil` when every channel delivered.
        public var warning: String?
    }

    /// The row's fate for `decision` (``DeliveryEntry/decision(now:timeZone:deliveryTime:quietAfter:lateAfter:)``) at `now`.
    public static func before(_ entry: DeliveryEntry, decision: DueDecision, now: Date) -> Before {
        var next = entry
        next.updatedAt = now
        switch decision {
        case .missed:
            next.state = .missed
            next.lastError =
                "its day ended before it could be sent (birthdays was not running, the machine slept, or the time zone moved past it)"
            return .finish(next, from: [.queued], tally: .missed)
        case .expire:
            // A retry whose day ended: delivered if a channel took it, else failed.
            next.nextAttemptAt = nil
            if next.deliveredAt != nil {
                next.state = .delivered
                next.lastError = next.lastError.map { $0 + "; its day ended before the other channels took it" }
                next.channels = nil
                return .finish(next, from: [.retrying], tally: .none)
            }
            next.state = .failed
            return .finish(next, from: [.retrying], tally: .failed)
        case .dismiss(let reason):
            next.state = .dismissed
            next.nextAttemptAt = nil
            next.lastError = reason
            return .finish(next, from: [.queued, .retrying], tally: .none)
        case .wait(let moment):
            return .move(to: moment)
        case .deliver(let late):
            return .send(late: late)
        }
    }

    /// The row and the channels after an attempt.
    ///
    /// - Parameters:
    ///   - entry: the claimed row (its ``DeliveryEntry/channels``: those it was being retried through, `nil` for all).
    ///   - outcomes: what each channel the reminder went to reported.
    ///   - late: whether the reminder was late.
    ///   - finishedAt: when the channels were done.
    ///   - deadline: the end of the reminder's local day: no retry after it.
    ///   - policy: the retry delays.
    public static func after(
        _ entry: DeliveryEntry,
        outcomes: [ChannelSet.Outcome],
        late: Bool,
        finishedAt: Date,
        deadline: Date,
        policy: RetryPolicy
    ) -> After {
        var next = entry
        next.attempts += 1
        next.late = late
        next.updatedAt = finishedAt
        guard !outcomes.isEmpty else {
            next.state = entry.deliveredAt == nil ? .failed : .delivered
            next.nextAttemptAt = nil
            next.lastError =
                entry.channels == nil
                ? "no notification channel is enabled"
                : "the channels it was being retried through were removed or paused: " + (entry.channels ?? []).joined(separator: ", ")
            if entry.deliveredAt != nil { next.channels = nil }
            return After(entry: next, tally: entry.deliveredAt == nil ? .failed : .none, channels: [], warning: next.lastError)
        }
        let delivered = outcomes.filter { $0.error == nil }.map(\.channel)
        let failures = outcomes.compactMap { outcome in outcome.error.map { ChannelFailure(channel: outcome.channel, error: $0) } }
        let firstDelivery = entry.deliveredAt == nil && !delivered.isEmpty
        if firstDelivery { next.deliveredAt = finishedAt }
        let reached = next.deliveredAt != nil
        // A channel that refused for good is not tried again for this reminder; one with nowhere to show it
        // (no desktop session) only while no channel has delivered it; the others that failed are.
        let retryable = failures.filter { !$0.error.isPermanent && !($0.error.isUnavailable && reached) }
        let words = failures.isEmpty ? nil : DeliveryError.channelsFailed(failures).description
        if retryable.isEmpty {
            next.nextAttemptAt = nil
            if reached {
                next.state = .delivered
                next.channels = nil
                next.lastError = words.map { "delivered through " + deliveredWords(delivered) + "; " + $0 }
                return After(entry: next, tally: firstDelivery ? .delivered(late: next.late) : .none, channels: outcomes, warning: words)
            }
            // Every channel that failed refused for good: recorded, shown in status, never retried.
            next.state = .failed
            next.channels = failures.map(\.channel)
            next.lastError = words
            return After(entry: next, tally: .failed, channels: outcomes, warning: words)
        }
        next.lastError = words
        // A server that asked to wait (429 with Retry-After) is not asked again sooner, when every
        // channel left to retry asked so: one that did not goes on the usual back-off, never held up.
        let waits = retryable.map(\.error.retryAfter)
        let asked = waits.contains(nil) ? nil : waits.compactMap { $0 }.max().map { finishedAt.addingTimeInterval($0.timeInterval) }
        switch policy.decide(afterFailures: next.attempts, failedAt: finishedAt, deadline: deadline, notBefore: asked) {
        case .retry(let at):
            next.state = .retrying
            next.nextAttemptAt = at
            next.channels = retryable.map(\.channel)
            let tally: Tally = firstDelivery ? .deliveredRetrying(late: next.late) : reached ? .none : .retrying
            return After(entry: next, tally: tally, channels: outcomes, warning: words)
        case .giveUp:
            // Something is left to retry, so something failed: `words` holds it.
            next.nextAttemptAt = nil
            if reached {
                next.state = .delivered
                next.channels = nil
                next.lastError = "delivered through \(deliveredWords(delivered)); \(words ?? ""); its day ended before the next attempt"
                return After(entry: next, tally: firstDelivery ? .delivered(late: next.late) : .none, channels: outcomes, warning: words)
            }
            next.lastError = "\(words ?? ""); its day ended before the next attempt, so it was not sent"
            next.state = .failed
            return After(entry: next, tally: .failed, channels: outcomes, warning: next.lastError)
        }
    }

    /// "email, phone": the channels that delivered now, or "another channel"
    /// when it was an earlier attempt's (the row does not keep their names).
    private static func deliveredWords(_ delivered: [String]) -> String {
        delivered.isEmpty ? "another channel earlier" : delivered.joined(separator: ", ")
    }
}
