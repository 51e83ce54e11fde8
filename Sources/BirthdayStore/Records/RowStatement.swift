import GRDB
import GRDBSQLite

/// One cached `INSERT` run row after row with its values bound straight
/// into SQLite (`sqlite3_bind_*`), for the import's hot path: GRDB's
/// `StatementArguments` box every value of every row in an existential and
/// an array first, which cost more than SQLite's own work on the row (a
/// person has 31 columns). Only for statements that return no rows, inside
/// a write transaction the caller holds; the SQL stays in the record that
/// owns the table.
struct RowStatement {
    private let statement: Statement

    /// The cached statement of `sql` on `db`.
    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
    }

    /// Binds the row's values in order with `bind`, then runs the statement once.
    ///
    /// Every parameter of the SQL is bound by `bind`, or the row is refused:
    /// the bindings of the row before are cleared first, so a value left out
    /// is never the previous row's.
    ///
    /// - Throws: `DatabaseError` with SQLite's message when the row is refused
    ///   (a value SQLite would not bind, a count of values that is not the
    ///   SQL's, a constraint, a full disk).
    func execute(_ bind: (inout Values) -> Void) throws {
        let handle = statement.sqliteStatement
        // A run that failed before reports its code here again; it was thrown then.
        _ = sqlite3_reset(handle)
        _ = sqlite3_clear_bindings(handle)
        var values = Values(handle)
        bind(&values)
        if let failed = values.failed {
            let message = sqlite3_errmsg(sqlite3_db_handle(handle)).map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: failed), message: message, sql: statement.sql)
        }
        guard values.count == sqlite3_bind_parameter_count(handle) else {
            throw DatabaseError(
                resultCode: .SQLITE_RANGE,
                message: "\(values.count) values bound for \(sqlite3_bind_parameter_count(handle)) parameters",
                sql: statement.sql
            )
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            let message = sqlite3_errmsg(sqlite3_db_handle(handle)).map { String(cString: $0) }
            _ = sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        _ = sqlite3_reset(handle)
    }

    /// The values of one row, bound at the next parameter each (1-based, in the SQL's order).
    struct Values {
        private let handle: SQLiteStatement
        private var index: CInt = 1
        /// The first code other than `SQLITE_OK` a bind returned.
        private(set) var failed: CInt?

        /// How many values were bound.
        var count: CInt { index - 1 }

        private mutating func check(_ code: CInt) {
            if code != SQLITE_OK, failed == nil { failed = code }
            index += 1
        }

        fileprivate init(_ handle: SQLiteStatement) {
            self.handle = handle
        }

        /// SQLite copies the bytes (`SQLITE_TRANSIENT`): the string may go once bound.
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        /// The text up to its first NUL, as GRDB binds a `String` (a C string),
        /// so a row written here holds what GRDB's writes would.
        mutating func text(_ value: String) {
            var value = value
            let code = value.withUTF8 { bytes -> CInt in
                let length = bytes.firstIndex(of: 0) ?? bytes.count
                // An empty buffer may have no address, and a NULL address binds NULL, not ''.
                guard let address = bytes.baseAddress, length > 0 else {
                    return sqlite3_bind_text(handle, index, "", 0, Self.transient)
                }
                guard let count = CInt(exactly: length) else { return SQLITE_TOOBIG }
                return sqlite3_bind_text(handle, index, address, count, Self.transient)
            }
            check(code)
        }

        mutating func text(_ value: String?) {
            guard let value else { return null() }
            text(value)
        }

        mutating func int(_ value: Int) {
            check(sqlite3_bind_int64(handle, index, Int64(value)))
        }

        mutating func int(_ value: Int?) {
            guard let value else { return null() }
            int(value)
        }

        mutating func double(_ value: Double) {
            check(sqlite3_bind_double(handle, index, value))
        }

        mutating func bool(_ value: Bool) {
            int(value ? 1 : 0)
        }

        mutating func null() {
            check(sqlite3_bind_null(handle, index))
        }
    }
}
