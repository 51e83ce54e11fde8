import BirthdayCore
import Foundation
import TestSupport
import Testing

@testable import BirthdayStore

#if canImport(Glibc)
import Glibc
#endif

/// A birthday written into a vdir card: replaced atomically with the card's
/// mode, only over the bytes that were read (a card changed in between is
/// read once more), never through a link.
@Suite struct LocalCardWriterTests {
    static let date = EventDate(year: 1990, month: 5, day: 17)!
    static let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada\r\nNOTE:first\r\nEND:VCARD\r\n"

    func folder() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try directory.write("ada.vcf", Self.card)
        #expect(chmod(directory.file("ada.vcf"), 0o640) == 0)
        return directory
    }

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        _ = stat(path, &info)
        return info.st_mode & 0o7777
    }

    @Test func theCardIsReplacedWithItsModeAndNoTemporaryFileIsLeft() throws {
        let directory = try folder()
        defer { directory.cleanup() }
        let result = try LocalCardWriter.writeBirthday(Self.date, personID: "ada", folder: directory.path, href: "ada.vcf")
        #expect(result == .written)
        #expect(try Self.text(directory.file("ada.vcf")) == Self.card.replacingOccurrences(of: "END:VCARD", with: "BDAY:1990-05-17\r\nEND:VCARD"))
        #expect(Self.mode(directory.file("ada.vcf")) == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ada.vcf"])
        // Now the card has a birthday: it wins.
        #expect(try LocalCardWriter.writeBirthday(Self.date, personID: "ada", folder: directory.path, href: "ada.vcf") == .cardHasBirthday)
    }

    @Test func aCardChangedBeforeTheRenameIsReadOnceMore() throws {
        let directory = try folder()
        defer { directory.cleanup() }
        let path = directory.file("ada.vcf")
        var calls = 0
        let result = try LocalCardWriter.writeBirthday(Self.date, personID: "ada", folder: directory.path, href: "ada.vcf") {
            calls += 1
            if calls == 1 { try? Data(Self.card.replacingOccurrences(of: "first", with: "edited").utf8).write(to: URL(fileURLWithPath: path)) }
        }
        #expect(result == .written)
        #expect(calls == 2)
        // The other program's edit is kept, with the birthday.
        #expect(try Self.text(path).contains("NOTE:edited\r\nBDAY:1990-05-17\r\nEND:VCARD"))
    }

    @Test func aCardThatKeepsChangingALinkAndAMissingCardAreNotWritten() throws {
        let directory = try folder()
        defer { directory.cleanup() }
        let path = directory.file("ada.vcf")
        var calls = 0
        #expect(throws: WriteBackError.changedMeanwhile(location: path)) {
            try LocalCardWriter.writeBirthday(Self.date, personID: "ada", folder: directory.path, href: "ada.vcf") {
                calls += 1
                try? Data(Self.card.replacingOccurrences(of: "first", with: "edit \(calls)").utf8).write(to: URL(fileURLWithPath: path))
            }
        }
        #expect(try Self.text(path).contains("NOTE:edit 2\r\nEND:VCARD"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ada.vcf"])

        #expect(symlink(path, directory.file("link.vcf")) == 0)
        #expect(throws: WriteBackError.cannotWrite(path: directory.file("link.vcf"), reason: "not a regular file (a link or a folder)")) {
            try LocalCardWriter.writeBirthday(Self.date, personID: "ada", folder: directory.path, href: "link.vcf")
        }
        #expect(throws: WriteBackError.gone(location: directory.file("gone.vcf"))) {
            try LocalCardWriter.writeBirthday(Self.date, personID: "ada", folder: directory.path, href: "gone.vcf")
        }
        #expect(throws: WriteBackError.gone(location: "../ada.vcf")) {
            try LocalCardWriter.writeBirthday(Self.date, personID: "ada", folder: directory.path, href: "../ada.vcf")
        }
        // Another person's card.
        #expect(throws: WriteBackError.edit(location: path, .personNotOnCard)) {
            try LocalCardWriter.writeBirthday(Self.date, personID: "bob", folder: directory.path, href: "ada.vcf")
        }
    }
}
