import BirthdayCore
import BirthdayStore
import Foundation

extension Context {
    /// The one person `query` names, the way every command that takes a
    /// PERSON finds them (`show`, `exclude`, `include`, `remind`): the stored
    /// id, else the public `p-…` id, else the exact name (ignoring case).
    ///
    /// - Throws: ``CLIError`` when no one matches, or when several people
    ///   have that name (the message lists their ids).
    func person(matching query: String) async throws -> Person {
        if let byID = try await database.person(id: query) { return byID }
        if PublicID.looksPublic(query), query.hasPrefix("p-") {
            let ids = try await database.publicIDs()
            guard let byPublicID = try await database.people().first(where: { ids.person($0.id) == query }) else {
                throw CLIError("no person has the id '\(query)'")
            }
            return byPublicID
        }
        let matches = try await database.people().filter { $0.name.caseInsensitiveCompare(query) == .orderedSame }
        guard let first = matches.first else { throw CLIError("no person has the id or name '\(query)'") }
        guard matches.count == 1 else {
            throw CLIError("\(matches.count) people are named '\(query)'; use an id: \(matches.map(\.id).joined(separator: ", "))")
        }
        return first
    }
}
