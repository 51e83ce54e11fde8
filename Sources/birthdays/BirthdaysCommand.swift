import ArgumentParser

@main
struct BirthdaysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "birthdays", abstract: "Never miss a birthday.")
}
