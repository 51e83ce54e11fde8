import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// The consent model and the delivery engine's transitions, as values:
/// no clock, no database, no channel.
extension DeliveryTests {
    @Suite struct ChannelConsentRuleTests {
        /// The table of ``ChannelConsent``: the permission is about the
        /// desktop; every other channel that is on delivers unless `denied`.
        static let table: [(AuthorizationStatus, [ChannelKind], [String], [String])] = [
            (.notDetermined, [.desktop], ["phone"], ["phone"]),
            (.notDetermined, [.desktop], [], []),
            (.notDetermined, [.desktop, .log], [], ["log"]),
            (.provisional, [.desktop], ["phone"], ["phone"]),
            (.provisional, [.desktop], [], ["log"]),
            (.provisional, [.desktop, .command], [], ["command"]),
            (.authorized, [.desktop], ["mail", "phone"], ["desktop", "mail", "phone"]),
            (.authorized, [], ["phone"], ["phone"]),
            (.authorized, [], [], []),
            (.denied, [.desktop, .log], ["phone"], []),
        ]

        @Test(arguments: Self.table)
        func whoDelivers(status: AuthorizationStatus, builtIn: [ChannelKind], added: [String], expected: [String]) {
            let consent = ChannelConsent(status: status, builtIn: builtIn, added: added)
            #expect(consent.names == expected)
            #expect(consent.delivers == !expected.isEmpty)
        }

        @Test func aHeldBackChannelSaysWhy() {
            #expect(ChannelConsent.hold(.desktop, status: .notDetermined) == .desktopNotAsked)
            #expect(ChannelConsent.hold(.desktop, status: .provisional) == .desktopWaiting)
            #expect(ChannelConsent.hold(.log, status: .denied) == .notificationsOff)
            #expect(ChannelConsent.hold(.log, status: .notDetermined) == nil)
        }

        @Test func aChoiceNamesBuiltInAndAddedChannels() throws {
            let choice = try ChannelChoice(parsing: " Desktop, email ,phone,desktop", added: ["email", "phone", "work"])
            #expect(choice.builtIn == [.desktop])
            #expect(choice.added == ["email", "phone"])
            let none = try ChannelChoice(parsing: "none", added: ["email"])
            #expect(none.builtIn.isEmpty && none.added.isEmpty)
        }

        @Test func aChoiceRefusesWhatIsNoChannelWithAHint() {
            #expect(throws: ChannelChoiceError.self) { try ChannelChoice(parsing: "desktop,emial", added: ["email"]) }
            do {
                _ = try ChannelChoice(parsing: "desktop,emial", added: ["email"])
            } catch {
                #expect(error.description == "'emial' is not a channel (did you mean email?); the channels are desktop, command, log, email")
            }
            do {
                _ = try ChannelChoice(parsing: "gopher", added: [])
            } catch {
                #expect(error.description.contains("the channels are desktop, command, log (add one with: birthdays channels add)"))
            }
            #expect(throws: ChannelChoiceError.self) { try ChannelChoice(parsing: " , ", added: []) }
        }

        @Test func theBuiltInSettingTakesNone() throws {
            var settings = Settings()
            try settings.set(.channels, to: "none")
            #expect(settings.channels.isEmpty)
            #expect(settings.text(for: .channels) == "none")
            #expect(Settings(stored: ["channels": "none"]).channels.isEmpty)
            #expect(SettingKey.channels.affectsReminders)
        }
    }

    @Suite struct ChannelStatusTests {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)

        @Test func aPassingFailureAfterARefusalReadsRetrying() {
            var status = ChannelStatus().recording(.remoteRefused(channel: "mail", reason: "550"), at: t0)
            #expect(status.state == "refused")
            status = status.recording(.remoteUnavailable(channel: "mail", reason: "timeout"), at: t0.addingTimeInterval(60))
            #expect(status.state == "retrying")
            // The row of refusals is not reset by a passing failure: the pause rule still counts it.
            #expect(status.refusals == 1)
            status = status.recording(nil, at: t0.addingTimeInterval(120))
            #expect(status.state == "ok")
            #expect(status.refusals == 0)
        }

        @Test func aDesktopWithoutASessionIsUnavailableNotFailing() {
            let status = ChannelStatus().recording(.noSessionBus(reason: "no DBUS_SESSION_BUS_ADDRESS"), at: t0)
            #expect(status.state == "unavailable")
            #expect(status.refusals == 0)
            #expect(ChannelStatus().recording(.noNotificationServer, at: t0).state == "unavailable")
            #expect(ChannelStatus().recording(.notificationServerTimedOut, at: t0).state == "retrying")
        }
    }

    @Suite struct DeliveryTransitionTests {
        static let berlin = TimeZone(identifier: "Europe/Berlin")!
        /// 2026-03-10 09:00 in Berlin.
        let fireAt = Date(timeIntervalSince1970: 1_773_129_600)
        var deadline: Date { fireAt.addingTimeInterval(15 * 3600) }

        func entry(state: DeliveryEntry.State = .sending, channels: [String]? = nil, deliveredAt: Date? = nil, attempts: Int = 0) -> DeliveryEntry {
            let request = NotificationRequest(
                personID: "ada",
                kind: .birthday,
                timing: .dayOf,
                fireAt: fireAt,
                occurrenceDate: date(2026, 3, 10),
                title: "Birthday Today",
                body: "Ada turns 36 today!"
            )
            var entry = DeliveryEntry(queued: request, at: fireAt)
            entry.state = state
            entry.channels = channels
            entry.deliveredAt = deliveredAt
            entry.attempts = attempts
            return entry
        }

        func after(_ entry: DeliveryEntry, _ outcomes: [(String, DeliveryError?)], at seconds: TimeInterval = 1) -> DeliveryTransition.After {
            DeliveryTransition.after(
                entry,
                outcomes: outcomes.map { ChannelSet.Outcome(channel: $0.0, error: $0.1) },
                late: false,
                finishedAt: fireAt.addingTimeInterval(seconds),
                deadline: deadline,
                policy: RetryPolicy()
            )
        }

        static let noSession = DeliveryError.noSessionBus(reason: "none")
        static let timeout = DeliveryError.remoteUnavailable(channel: "phone", reason: "timed out")
        static let refused = DeliveryError.remoteRefused(channel: "mail", reason: "550 no such user")

        @Test func everyChannelDelivered() {
            let next = after(entry(), [("desktop", nil), ("mail", nil)])
            #expect(next.entry.state == .delivered)
            #expect(next.entry.deliveredAt == fireAt.addingTimeInterval(1))
            #expect(next.entry.lastError == nil)
            #expect(next.tally == .delivered(late: false))
            #expect(next.warning == nil)
        }

        /// The issue's case: no desktop session, three added channels that all delivered.
        @Test func aDesktopWithoutASessionIsNotAFailureWhenAnotherChannelDelivered() throws {
            let next = after(entry(), [("desktop", Self.noSession), ("mail", nil), ("phone", nil), ("chat", nil)])
            #expect(next.entry.state == .delivered)
            #expect(next.entry.nextAttemptAt == nil)
            #expect(next.entry.channels == nil)
            #expect(next.tally == .delivered(late: false))
            #expect(try #require(next.entry.lastError).hasPrefix("delivered through mail, phone, chat; desktop: "))
            #expect(next.channels.map(\.channel) == ["desktop", "mail", "phone", "chat"])
        }

        /// When the desktop is the only channel, the reminder waits for a session (retried until its day ends).
        @Test func aDesktopAloneWithoutASessionWaitsForOne() {
            let next = after(entry(), [("desktop", Self.noSession)])
            #expect(next.entry.state == .retrying)
            #expect(next.entry.channels == ["desktop"])
            #expect(next.entry.nextAttemptAt == fireAt.addingTimeInterval(31))
            #expect(next.tally == .retrying)
        }

        @Test func aChannelThatFailedIsRetriedAloneAndTheReminderCountsAsDelivered() {
            let first = after(entry(), [("desktop", nil), ("phone", Self.timeout)])
            #expect(first.entry.state == .retrying)
            #expect(first.entry.channels == ["phone"])
            #expect(first.entry.deliveredAt == fireAt.addingTimeInterval(1))
            #expect(first.tally == .deliveredRetrying(late: false))
            // The retry that gets through is not counted again.
            let second = after(first.entry, [("phone", nil)], at: 40)
            #expect(second.entry.state == .delivered)
            #expect(second.entry.deliveredAt == fireAt.addingTimeInterval(1))
            #expect(second.entry.lastError == nil)
            #expect(second.tally == DeliveryTransition.Tally.none)
        }

        @Test func aDesktopThatFailedWhileNothingDeliveredIsDroppedOnceAnotherChannelDelivers() {
            let first = after(entry(), [("desktop", Self.noSession), ("phone", Self.timeout)])
            #expect(first.entry.state == .retrying)
            #expect(first.entry.channels == ["desktop", "phone"])
            #expect(first.tally == .retrying)
            let second = after(first.entry, [("desktop", Self.noSession), ("phone", nil)], at: 40)
            #expect(second.entry.state == .delivered)
            #expect(second.tally == .delivered(late: false))
        }

        @Test func everyChannelRefusedIsAFailureNeverRetried() {
            let next = after(entry(), [("mail", Self.refused)])
            #expect(next.entry.state == .failed)
            #expect(next.entry.channels == ["mail"])
            #expect(next.entry.nextAttemptAt == nil)
            #expect(next.tally == .failed)
        }

        @Test func aRefusalBesideADeliveryIsNotedNotFailed() {
            let next = after(entry(), [("desktop", nil), ("mail", Self.refused)])
            #expect(next.entry.state == .delivered)
            #expect(next.tally == .delivered(late: false))
            #expect(next.warning?.contains("mail refused the reminder") == true)
        }

        @Test func aRetryAfterHoldsTheRetryBackOnlyWhenEveryRetriedChannelAskedIt() {
            let throttled = DeliveryError.remoteThrottled(channel: "phone", reason: "429", retryAfter: .seconds(600))
            let held = after(entry(), [("phone", throttled)])
            #expect(held.entry.nextAttemptAt == fireAt.addingTimeInterval(601))
            let notHeld = after(entry(), [("phone", throttled), ("chat", Self.timeout)])
            #expect(notHeld.entry.nextAttemptAt == fireAt.addingTimeInterval(31))
        }

        @Test func aRetryPastTheEndOfItsDayGivesUp() {
            let late = after(entry(attempts: 8), [("phone", Self.timeout)], at: 15 * 3600 - 60)
            #expect(late.entry.state == .failed)
            #expect(late.tally == .failed)
            #expect(late.entry.lastError?.hasSuffix("its day ended before the next attempt, so it was not sent") == true)
            let delivered = after(entry(attempts: 8), [("desktop", nil), ("phone", Self.timeout)], at: 15 * 3600 - 60)
            #expect(delivered.entry.state == .delivered)
            #expect(delivered.tally == .delivered(late: false))
        }

        @Test func noChannelLeftIsAFailureUnlessOneDeliveredBefore() {
            #expect(after(entry(), []).entry.state == .failed)
            #expect(after(entry(), []).entry.lastError == "no notification channel is enabled")
            let removed = after(entry(channels: ["phone"]), [])
            #expect(removed.entry.lastError == "the channels it was being retried through were removed or paused: phone")
            let partly = after(entry(channels: ["phone"], deliveredAt: fireAt), [])
            #expect(partly.entry.state == .delivered)
            #expect(partly.tally == DeliveryTransition.Tally.none)
        }

        @Test func beforeSendingMissedExpiredAndWaitingRowsAreFinished() {
            let now = fireAt.addingTimeInterval(86_400)
            guard case .finish(let missed, let from, let tally) = DeliveryTransition.before(entry(state: .queued), decision: .missed, now: now) else {
                Issue.record("a missed row is finished")
                return
            }
            #expect(missed.state == .missed && from == [.queued] && tally == .missed && missed.updatedAt == now)
            guard case .finish(let expired, _, let failed) = DeliveryTransition.before(entry(state: .retrying), decision: .expire, now: now) else {
                Issue.record("an expired retry is finished")
                return
            }
            #expect(expired.state == .failed && failed == .failed)
            let partly = DeliveryTransition.before(entry(state: .retrying, deliveredAt: fireAt), decision: .expire, now: now)
            guard case .finish(let kept, _, let none) = partly else {
                Issue.record("an expired partial delivery is finished")
                return
            }
            #expect(kept.state == .delivered && none == DeliveryTransition.Tally.none)
            #expect(DeliveryTransition.before(entry(state: .queued), decision: .wait(until: now), now: fireAt) == .move(to: now))
            #expect(DeliveryTransition.before(entry(state: .queued), decision: .deliver(late: true), now: fireAt) == .send(late: true))
        }
    }
}
