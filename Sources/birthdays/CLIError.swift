/// A command that ran and failed: printed as one line, `Error: <message>`,
/// without the usage text, and the exit status is 1. Bad arguments are
/// `ValidationError`s instead (usage text, exit status 64).
struct CLIError: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) {
        description = message
    }
}
