import BirthdayCore
internal import CWake
import Foundation
import Synchronization

/// Reports, without polling, when the daemon's schedule may be stale: the
/// wall clock was set, the system resumed from suspend, or the time zone changed.
///
/// Sources:
/// - A ``ClockChangeTimer`` (timerfd with TFD_TIMER_CANCEL_ON_SET) for clock
///   changes and, on current kernels, resumes; the suspension length comes
///   from CLOCK_BOOTTIME − CLOCK_MONOTONIC (see ``WakeDetector``).
/// - inotify on the directory of the zone file (`/etc/localtime`, replaced
///   as a symlink by `timedatectl set-timezone`): on any change to that name
///   the zone is read again with `currentTimeZone`, and a change of
///   identifier is reported. `TZ` in the environment cannot change at run
///   time, and when it is set the zone file does not matter.
/// - Optionally logind's `PrepareForSleep(false)` on the system bus; when
///   there is no system bus (containers) this source is simply absent.
///
/// Events arrive on ``reasons`` in order; the stream ends after ``stop()``.
/// Local midnight is not reported: the scheduler sleeps until it.
package final class WakeMonitor: Sendable {
    package let reasons: AsyncStream<WakeReason>
    /// Whether logind's sleep signals are being watched.
    package let watchesSleepSignals: Bool

    private let stopFD: Int32
    private let sleepClient: DBusClient?
    private let stopped = Mutex(false)

    /// Starts watching, on a thread of its own.
    ///
    /// - Parameters:
    ///   - currentTimeZone: the system zone as of now; the CLI passes a
    ///     function that calls `NSTimeZone.resetSystemTimeZone()` and returns
    ///     `TimeZone.current` (Foundation caches it otherwise).
    ///   - zoneFile: the file whose changes mean the zone may have changed.
    ///   - sleepSignals: the bus where logind lives (`.system`), or `nil` to skip it.
    ///   - suspendThreshold: a clock change with at least this much new
    ///     suspended time is reported as a resume.
    /// - Throws: ``WakeError`` when the timer, the watch or the thread's
    ///   eventfd cannot be created.
    package init(
        currentTimeZone: @escaping @Sendable () -> TimeZone,
        zoneFile: String = "/etc/localtime",
        sleepSignals: DBusBusAddress? = .system,
        suspendThreshold: Duration = .seconds(1)
    ) throws(WakeError) {
        let timer = try ClockChangeTimer()
        try timer.arm()
        let url = URL(fileURLWithPath: zoneFile)
        let watchFD = cwake_watch_directory(url.deletingLastPathComponent().path)
        guard watchFD >= 0 else { throw WakeError("inotify_add_watch", errno: -watchFD) }
        let stopFD = cwake_eventfd()
        guard stopFD >= 0 else {
            cwake_close(watchFD)
            throw WakeError("eventfd", errno: -stopFD)
        }
        self.stopFD = stopFD

        let (stream, continuation) = AsyncStream.makeStream(of: WakeReason.self, bufferingPolicy: .bufferingNewest(64))
        reasons = stream
        let detector = SharedDetector(WakeDetector(suspendedTotal: Self.suspendedSinceBoot(), zone: currentTimeZone(), threshold: suspendThreshold))

        var client: DBusClient?
        if let sleepSignals {
            client = try? DBusClient(
                bus: sleepSignals,
                matchRules: ["type='signal',interface='org.freedesktop.login1.Manager',member='PrepareForSleep'"]
            ) { signal in
                guard signal.member == "PrepareForSleep", signal.arguments.first?.boolValue == false else { return }
                let found = detector.state.withLock { $0.resumeSignalled(suspendedTotal: Self.suspendedSinceBoot(), zone: currentTimeZone()) }
                for item in found { continuation.yield(item) }
            }
        }
        sleepClient = client
        watchesSleepSignals = client != nil

        let loop = Loop(
            timer: timer,
            watchFD: watchFD,
            stopFD: stopFD,
            zoneName: url.lastPathComponent,
            detector: detector,
            currentTimeZone: currentTimeZone,
            continuation: continuation
        )
        let thread = Thread {
            // Named for ps and top: Thread.name does not reach the kernel on Linux.
            cwake_name_thread("birthdays-wake")
            loop.run()
        }
        thread.start()
    }

    deinit { stop() }

    /// Stops watching and ends ``reasons``.
    package func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        sleepClient?.close()
        _ = cwake_eventfd_signal(stopFD)
    }

    /// The detector, shared by the watching thread and the logind connection's thread.
    private final class SharedDetector: Sendable {
        let state: Mutex<WakeDetector>
        init(_ detector: WakeDetector) { state = Mutex(detector) }
    }

    /// The watching thread's state; everything here is used on that thread only.
    private final class Loop: @unchecked Sendable {
        let timer: ClockChangeTimer
        let watchFD: Int32
        let stopFD: Int32
        let zoneName: String
        let detector: SharedDetector
        let currentTimeZone: @Sendable () -> TimeZone
        let continuation: AsyncStream<WakeReason>.Continuation

        init(
            timer: ClockChangeTimer,
            watchFD: Int32,
            stopFD: Int32,
            zoneName: String,
            detector: SharedDetector,
            currentTimeZone: @escaping @Sendable () -> TimeZone,
            continuation: AsyncStream<WakeReason>.Continuation
        ) {
            self.timer = timer
            self.watchFD = watchFD
            self.stopFD = stopFD
            self.zoneName = zoneName
            self.detector = detector
            self.currentTimeZone = currentTimeZone
            self.continuation = continuation
        }

        deinit {
            cwake_close(watchFD)
            cwake_close(stopFD)
        }

        func run() {
            defer { continuation.finish() }
            while true {
                let ready = cwake_wait(timer.fd, watchFD, stopFD)
                if ready < 0 || ready & Int32(CWAKE_READY_STOP) != 0 { return }
                var found: [WakeReason] = []
                if ready & Int32(CWAKE_READY_TIMER) != 0 {
                    switch timer.read() {
                    case .clockChanged, .expired:
                        // Re-arm first so a change that happens while we report is not lost.
                        try? timer.arm()
                        let suspended = WakeMonitor.suspendedSinceBoot()
                        let zone = currentTimeZone()
                        found += detector.state.withLock { $0.clockChanged(suspendedTotal: suspended, zone: zone) }
                    case .nothing:
                        break
                    case .failed:
                        return
                    }
                }
                if ready & Int32(CWAKE_READY_WATCH) != 0, cwake_watch_read(watchFD, zoneName) == 1 {
                    found += detector.state.withLock { $0.zoneFileChanged(zone: currentTimeZone()) }
                }
                for item in found { continuation.yield(item) }
            }
        }
    }
}
