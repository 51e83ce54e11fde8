import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Standard output and standard error, written with `write(2)` and checked.
///
/// Every command prints through ``output(_:terminator:)``: a write that
/// fails (a full disk, `/dev/full`, a file system gone read-only) is a
/// ``CLIError``, so the command exits with status 1 and one line on
/// standard error instead of reporting success for output that was lost,
/// or stopping with a fatal error as `FileHandle.write` does. A closed pipe
/// still ends the command with SIGPIPE, as it does `cat`.
enum StandardOutput {
    /// Writes every byte of `bytes` to descriptor `fd`, retrying after
    /// interrupts and short writes; the `errno` of a failure.
    static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
        guard var base = bytes.baseAddress else { return nil }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(fd, base, left)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    // A non-blocking descriptor inherited from the shell: wait until it drains.
                    var waiter = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&waiter, 1, -1)
                    continue
                }
                return errno
            }
            base += written
            left -= written
        }
        return nil
    }

    /// Writes `bytes` to standard output.
    static func write(_ bytes: [UInt8]) throws(CLIError) {
        try check(bytes.withUnsafeBytes { write($0, to: 1) })
    }

    /// Writes `text` to standard output.
    static func write(_ text: String) throws(CLIError) {
        var text = text
        try check(text.withUTF8 { write(UnsafeRawBufferPointer($0), to: 1) })
    }

    private static func check(_ code: Int32?) throws(CLIError) {
        if let code { throw CLIError("cannot write to standard output: \(String(cString: strerror(code)))") }
    }
}

/// Prints `text` and `terminator` on standard output (see ``StandardOutput``).
///
/// - Throws: ``CLIError`` when the write fails.
func output(_ text: String, terminator: String = "\n") throws(CLIError) {
    try StandardOutput.write(text + terminator)
}

/// Writes `text` and a newline to standard error; a failure there has
/// nowhere to be reported and is ignored.
func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = StandardOutput.write(UnsafeRawBufferPointer($0), to: 2) }
}
