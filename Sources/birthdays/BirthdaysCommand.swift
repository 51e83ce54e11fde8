import ArgumentParser
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
    static func main() async {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await main(nil)
    }
}
