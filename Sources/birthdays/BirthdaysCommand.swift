import ArgumentParser
import CExecutorHook
import NIOCore
import NIOPosix

/// `birthdays`: the command-line front end. Commands only parse arguments,
/// call BirthdayKit and print; the rules live in the library.
@main
struct BirthdaysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "birthdays",
        abstract: "Never miss a birthday: import contact exports, list upcoming birthdays, get reminded.",
        discussion: """
            Data lives in one SQLite file: --database PATH, else $BIRTHDAYS_DATABASE, \
            else $XDG_DATA_HOME/birthdays/birthdays.sqlite (~/.local/share/...). \
            BIRTHDAYS_NOW (ISO 8601) overrides the current time for every command.
            """,
        subcommands: [
            Import.self,
            Upcoming.self,
            People.self,
            Reschedule.self,
            Run.self,
            Deliver.self,
            Status.self,
            Snooze.self,
            Dismiss.self,
            Show.self,
            Pending.self,
            SettingsCommand.self,
            Notifications.self,
            Onboard.self,
            Export.self,
            Serve.self,
            Feed.self,
        ]
    )

    /// Runs every command with Swift concurrency's jobs on NIO's event loops
    /// (the threads the feed server uses anyway) instead of libdispatch's
    /// worker pool. That pool starts a monitor on its first job that wakes the
    /// process every second for good; `birthdays run` must stay asleep between
    /// reminders. The hook has to be in place before the first job runs.
    ///
    /// NIO offers the same switch, but finds the runtime's hook with `dlsym`,
    /// which fails silently when the runtime is linked into the executable
    /// (the release build); ``CExecutorHook`` refers to it directly.
    static func main() async {
        _ = birthdays_install_global_executor(enqueueOnEventLoop)
        await main(nil)
    }
}

/// Swift concurrency's global executor: an event loop of NIO's singleton
/// group, the caller's own when it runs on one. A global function, so that it
/// carries no actor isolation into the threads that call it.
private func enqueueOnEventLoop(_ job: UnsafeMutableRawPointer) {
    MultiThreadedEventLoopGroup.singleton.any().enqueue(ExecutorJob(unsafeBitCast(job, to: UnownedJob.self)))
}
