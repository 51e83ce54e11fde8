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
    /// - Throws: `DatabaseError` with SQLite's message when the row is refused
    ///   (a constraint, a full disk).
    func execute(_ bind: (inout Values) -> Void) throws {
        let handle = statement.sqliteStatement
        // A run that failed before reports its code here again; it was thrown then.
        _ = sqlite3_reset(handle)
        var values = Values(handle)
        bind(&values)
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

        fileprivate init(_ handle: SQLiteStatement) {
            self.handle = handle
        }

        /// SQLite copies the bytes (`SQLITE_TRANSIENT`): the string may go once bound.
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        mutating func text(_ value: String) {
            var value = value
            value.withUTF8 { bytes in
                // An empty buffer may have no address, and a NULL address binds NULL, not ''.
                if let address = bytes.baseAddress {
                    _ = sqlite3_bind_text(handle, index, address, CInt(bytes.count), Self.transient)
                } else {
                    _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
                }
            }
            index += 1
        }

        mutating func text(_ value: String?) {
            guard let value else { return null() }
            text(value)
        }

        mutating func int(_ value: Int) {
            _ = sqlite3_bind_int64(handle, index, Int64(value))
            index += 1
        }

        mutating func int(_ value: Int?) {
            guard let value else { return null() }
            int(value)
        }

        mutating func double(_ value: Double) {
            _ = sqlite3_bind_double(handle, index, value)
            index += 1
        }

        mutating func bool(_ value: Bool) {
            int(value ? 1 : 0)
        }

        mutating func null() {
            _ = sqlite3_bind_null(handle, index)
            index += 1
        }
    }
}
