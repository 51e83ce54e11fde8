import BirthdayCore
import Foundation
import GRDB

/// Something went wrong with the database file.
package enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or its directory could not be created or opened.
    case cannotOpen(path: String, reason: String)
    /// There is no database file at the path, and the command only reads.
    case missing(path: String)
    /// Another process held the database longer than the busy timeout.
    case busy(path: String)
    /// The file exists but is not a `birthdays` database (or is damaged).
    case notADatabase(path: String)
    /// Any other SQLite failure; `reason` never contains statement arguments.
    case sqlite(path: String, reason: String)
    /// The task that asked was cancelled (birthdays is stopping) before the work started; nothing was read or written.
    case cancelled(path: String)

    init(_ error: any Error, path: String) {
        if let error = error as? StoreError {
            self = error
        } else if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED: self = .busy(path: path)
            case .SQLITE_NOTADB, .SQLITE_CORRUPT: self = .notADatabase(path: path)
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY: self = .cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
            default: self = .sqlite(path: path, reason: error.message ?? "\(error.resultCode)")
            }
        } else {
            self = .sqlite(path: path, reason: String(describing: error))
        }
    }

    package var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the database \(path): \(reason)"
        case .missing(let path): "there is no database at \(path); import contacts first, or check --database and BIRTHDAYS_DATABASE"
        case .busy(let path): "the database \(path) is busy (another birthdays process is writing); try again"
        case .notADatabase(let path): "\(path) is not a birthdays database, or it is damaged"
        case .sqlite(let path, let reason): "database error in \(path): \(reason)"
        case .cancelled(let path): "the work on the database \(path) was stopped before it started; nothing was written"
        }
    }
}
