import BirthdayCore
import Foundation
import GRDB

/// What an accepted invitation answer (`birthdays invites accept`) writes to
/// the people: a new person, or a birthday and a group for one who exists.
extension PersonRecord {
    /// Gives the person `id` the birthday `date`, kept as a date the card
    /// does not have (``Person/calendarFilled``: a later import or sync of
    /// their card keeps it while the card still lacks one); whether they exist.
    static func setInvitedBirthday(id: String, date: EventDate, now: Date, _ db: Database) throws -> Bool {
        guard let row = try Row.fetchOne(db, sql: "SELECT calendarFilled FROM person WHERE id = ?", arguments: [id]) else { return false }
        let filled = calendarFilled(column: row[0]).union([.birthday])
        try db.execute(
            sql: """
                UPDATE person SET birthdayYear = ?, birthdayMonth = ?, birthdayDay = ?, calendarFilled = ?, updatedAt = ?
                WHERE id = ?
                """,
            arguments: [date.year, date.month, date.day, calendarFilledColumn(filled), now.timeIntervalSince1970, id]
        )
        return db.changesCount > 0
    }
}

extension PersonRecord {
    /// The birthday of the person `id` when it is their card's own (not one a
    /// birthday calendar or an invitation filled in), else `nil`.
    static func cardBirthday(id: String, _ db: Database) throws -> EventDate? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT birthdayYear, birthdayMonth, birthdayDay, calendarFilled FROM person WHERE id = ?",
                arguments: [id]
            ),
            let month = row[1] as Int?, let day = row[2] as Int?
        else { return nil }
        return calendarFilled(column: row[3]).contains(.birthday) ? nil : EventDate(year: row[0], month: month, day: day)
    }
}

extension PersonGroupRecord {
    /// Puts the person `personID` in the group `name` too (their other groups stay).
    static func add(personID: String, to name: String, _ db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO personGroup (personId, name) VALUES (?, ?)", arguments: [personID, name])
    }
}
