import BirthdayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an iCalendar export failed.
///
/// The description is a sentence a user can read. It names a person only by
/// id and a file only by the path the caller gave, never by a name or a date.
package struct ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Equatable, Sendable {
        /// libical returned no object where one was expected (out of memory, or a value it rejected).
        case libical(what: String)
        /// Two people passed in share an id, so their events would share a UID.
        case duplicateID(String)
        /// A file-system step of ``CalendarExporter/write(_:lastChange:to:)`` failed.
        case write(path: String, step: String, errno: Int32)
        /// The output path names something other than a regular file (a device, a FIFO, a folder).
        case notAFile(path: String)
        /// Text handed to the internal parser was not iCalendar.
        case unparsable
        /// libical could not be loaded (see CLibical.h).
        case libicalMissing(String)
    }

    let code: Code

    init(_ code: Code) {
        self.code = code
    }

    package var description: String {
        switch code {
        case .libical(let what):
            "could not build the calendar: libical failed to create \(what)"
        case .duplicateID(let id):
            "two people share the id '\(id)'; each person needs a unique id to get a calendar event"
        case .write(let path, let step, let errno):
            "could not write the calendar to \(path): \(step) failed (\(ExportError.errorText(errno)))"
        case .notAFile(let path):
            "could not write the calendar to \(path): it is not a regular file (a device, a pipe or a folder); "
                + "name a file, or leave out --output to write to standard output"
        case .unparsable:
            "the text is not an iCalendar object"
        case .libicalMissing(let detail):
            "could not build the calendar: libical is not installed (Debian 12: apt install libical3; later releases: libical3t64): \(detail)"
        }
    }

    private static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
