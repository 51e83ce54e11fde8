import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdaySystem

#if canImport(Glibc)
import Glibc
#endif

extension DeliveryTests {
    @Suite struct ClockChangeTimerTests {
        @Test(arguments: [
            (8, 0, ClockChangeTimer.ReadResult.expired),
            (-1, ECANCELED, .clockChanged),
            (-1, EAGAIN, .nothing),
            (-1, EINTR, .nothing),
            (-1, EBADF, .failed),
            (3, 0, .failed),
        ])
        func readResultsAreClassified(bytes: Int, code: Int32, expected: ClockChangeTimer.ReadResult) {
            #expect(ClockChangeTimer.ReadResult.classify(bytes: bytes, errno: code) == expected)
        }

        @Test func theTimerArmsFarAheadAndReportsNothingUntilTheClockChanges() throws {
            let timer = try ClockChangeTimer()
            #expect(timer.remainingSeconds == 0)
            try timer.arm()
            #expect(timer.remainingSeconds > 365 * 86_400)
            #expect(timer.read() == .nothing)
        }

        @Test func aTimerArmedInThePastExpiresAtOnce() throws {
            let timer = try ClockChangeTimer()
            try timer.arm(epochSeconds: 1)
            #expect(timer.read() == .expired)
            #expect(timer.read() == .nothing)
        }

        @Test(arguments: [
            (Int64(100), Int64(500), Int64(90), Int64(700), Duration.nanoseconds(9_999_999_800)),
            (5, 0, 5, 0, .zero),
            (7, 100, 6, 999_999_999, .nanoseconds(101)),
        ])
        func suspendedTimeIsBoottimeMinusMonotonic(bootS: Int64, bootNs: Int64, monoS: Int64, monoNs: Int64, expected: Duration) {
            let suspended = WakeMonitor.suspended(bootSeconds: bootS, bootNanoseconds: bootNs, monotonicSeconds: monoS, monotonicNanoseconds: monoNs)
            #expect(suspended == expected)
        }

        @Test func suspendedSinceBootIsStableWhileAwake() {
            // The two clocks are read one after the other, so two samples differ
            // by nanoseconds either way (seen here: 21 ns, then 20 ns); never by a second.
            let first = WakeMonitor.suspendedSinceBoot()
            let second = WakeMonitor.suspendedSinceBoot()
            #expect(first >= .zero)
            #expect(second > first - .milliseconds(1))
            #expect(second < first + .milliseconds(1))
        }
    }
}

extension DeliveryTests {
    @Suite(.timeLimit(.minutes(10)))
    struct WakeMonitorTests {
        /// The zone the monitor reads; the test changes it with the zone file.
        final class Zone: Sendable {
            let current = Mutex(TimeZone(identifier: "Europe/Berlin")!)
            func read() -> TimeZone { current.withLock { $0 } }
        }

        @Test func replacingTheZoneFileReportsTheNewZone() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let zoneFile = directory.file("localtime")
            try FileManager.default.createSymbolicLink(atPath: zoneFile, withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
            let zone = Zone()
            let monitor = try WakeMonitor(currentTimeZone: zone.read, zoneFile: zoneFile, sleepSignals: nil)
            defer { monitor.stop() }
            #expect(!monitor.watchesSleepSignals)

            // An unrelated file in the same directory changes nothing,
            try directory.write("adjtime", "0.0 0 0.0\n")
            // then the zone changes the way timedatectl does it: a new symlink renamed over the old one.
            let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
            zone.current.withLock { $0 = tokyo }
            let replacement = directory.file(".localtime.new")
            try FileManager.default.createSymbolicLink(atPath: replacement, withDestinationPath: "/usr/share/zoneinfo/Asia/Tokyo")
            #expect(rename(replacement, zoneFile) == 0)

            #expect(await first(1, of: monitor.reasons) == [.timeZoneChanged(tokyo)])
        }

        @Test func stoppingEndsTheStream() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let monitor = try WakeMonitor(currentTimeZone: Zone().read, zoneFile: directory.file("localtime"), sleepSignals: nil)
            monitor.stop()
            #expect(await first(1, of: monitor.reasons) == [])
        }

        @Test func aMissingZoneDirectoryIsAWakeError() {
            #expect(throws: WakeError.self) {
                try WakeMonitor(currentTimeZone: Zone().read, zoneFile: "/nonexistent-dir/localtime", sleepSignals: nil)
            }
        }

        @Test(
            .enabled(
                if: SystemTools.path("dbus-daemon") != nil && SystemTools.path("gdbus") != nil,
                "needs dbus-daemon and gdbus (apt: dbus, libglib2.0-bin)"
            )
        )
        func logindsPrepareForSleepFalseIsAResume() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let bus = try await PrivateBus()
            defer { bus.stop() }
            let monitor = try WakeMonitor(currentTimeZone: Zone().read, zoneFile: directory.file("localtime"), sleepSignals: .address(bus.address))
            defer { monitor.stop() }
            #expect(monitor.watchesSleepSignals)

            // Going to sleep (true) is not a wake; waking (false) is.
            for going in ["true", "false"] {
                _ = try await TestProcess.run(
                    [
                        "/usr/bin/gdbus", "emit", "--session", "--object-path", "/org/freedesktop/login1",
                        "--signal", "org.freedesktop.login1.Manager.PrepareForSleep", going,
                    ],
                    environment: bus.environment
                )
            }

            let reasons = await first(1, of: monitor.reasons)
            guard case .resumed = reasons.first else {
                Issue.record("expected a resume, got \(reasons)")
                return
            }
        }

        @Test func withoutASystemBusTheSleepSignalsAreSimplyAbsent() throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let monitor = try WakeMonitor(
                currentTimeZone: Zone().read,
                zoneFile: directory.file("localtime"),
                sleepSignals: .address("unix:path=" + directory.file("no-bus"))
            )
            defer { monitor.stop() }
            #expect(!monitor.watchesSleepSignals)
        }
    }
}
