internal import CWake

/// SIGINT and SIGTERM caught and only recorded, for work that must not stop
/// half-way (`users move`): it asks ``caught`` where it may stop cleanly,
/// and carries on where it may not. The handler runs on whichever thread
/// the signal reaches; it only stores the signal's number.
package enum StopSignals {
    /// Runs `body` with SIGINT and SIGTERM caught; `body` is given a
    /// function that says which of them came since (`nil` for none). Their
    /// default action (ending the process) is back once `body` returns.
    package static func catching<Result, Failure: Error>(
        _ body: (_ caught: () -> Int32?) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        _ = cwake_catch_stop_signals()
        defer { cwake_default_stop_signals() }
        return try body { cwake_stop_signal() == 0 ? nil : cwake_stop_signal() }
    }
}
