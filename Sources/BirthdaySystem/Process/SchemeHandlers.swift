import BirthdayCore
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Which URI schemes the desktop has a handler for, and opening a URI with
/// it: what the reminder's "Write to Ada" / "Call Ada" button needs.
///
/// Rules:
/// - A scheme has a handler when `xdg-mime query default x-scheme-handler/<scheme>`
///   prints a desktop file's name. Each scheme is asked once per instance;
///   the daemon makes one per delivery pass, so a handler installed later is
///   found at the next pass. No `xdg-mime` means no handler.
/// - ``open(_:environment:)`` runs `xdg-open URI` (an argument list, no
///   shell) in a session of its own, not waited for with a timeout: the
///   mail program it starts may run for hours and must not be stopped. One
///   thread reaps it when it ends.
/// - Neither logs the URI.
package final class SchemeHandlers: Sendable {
    private let environment: [String: String]
    private let clock: any Clock<Duration>
    private let known = Mutex<[String: Bool]>([:])

    /// - Parameters:
    ///   - environment: what `xdg-mime` runs with (`XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `PATH`).
    ///   - clock: what its 5 s timeout runs on.
    package init(environment: [String: String], clock: any Clock<Duration> = ContinuousClock()) {
        self.environment = environment
        self.clock = clock
    }

    /// Whether the desktop has a handler for `scheme` (`mailto`, `tel`, `xmpp`).
    package func hasHandler(for scheme: String) async -> Bool {
        if let answer = known.withLock({ $0[scheme] }) { return answer }
        let answer = await ask(scheme)
        known.withLock { $0[scheme] = answer }
        return answer
    }

    /// The first of `links` whose scheme has a handler.
    package func firstHandled(_ links: [ContactLink]) async -> ContactLink? {
        for link in links {
            if await hasHandler(for: link.scheme) { return link }
        }
        return nil
    }

    private func ask(_ scheme: String) async -> Bool {
        guard !scheme.isEmpty, scheme.utf8.allSatisfy({ $0 < 0x80 && (isalnum(Int32($0)) != 0 || "+-.".utf8.contains($0)) }),
            let program = SystemCommand.find("xdg-mime", environment: environment)
        else { return false }
        do {
            let outcome = try await ChildProcess.run(
                [program, "query", "default", "x-scheme-handler/" + scheme],
                environment: environment,
                output: .capture(limit: 4096),
                timeout: .seconds(5),
                clock: clock
            )
            guard outcome.termination == .exited(0), !outcome.timedOut else { return false }
            return !String(decoding: outcome.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        } catch {
            return false
        }
    }

    /// Why a URI could not be opened.
    package struct OpenFailure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Opens `uri` with `xdg-open` (found in the `PATH` of `environment`).
    package static func open(_ uri: String, environment: [String: String]) throws(OpenFailure) {
        guard let program = SystemCommand.find("xdg-open", environment: environment) else {
            throw OpenFailure(description: "xdg-open is not installed (Debian: apt install xdg-utils)")
        }
        let pid: pid_t
        do {
            pid = try ChildProcess.startDetached([program, uri], environment: environment, log: "/dev/null")
        } catch {
            throw OpenFailure(description: error.reason)
        }
        let thread = Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        thread.name = "birthdays-child"
        thread.start()
    }
}
