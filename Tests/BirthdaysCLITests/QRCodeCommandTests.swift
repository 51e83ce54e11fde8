import Foundation
import TestSupport
import Testing

/// `feed url --qr` and `channels qr`: the printed code, photographed as a
/// terminal shows it, decodes back to the address (zbar).
@Suite struct QRCodeCommandTests {
    /// The lines of the QR code in a command's output: those made only of half blocks and spaces.
    static func codeLines(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { line in
            !line.isEmpty && line.allSatisfy { "█▀▄ ".contains($0) }
        }
    }

    @Test func theFeedsAddressIsDrawnAndDecodesBackWithANoteForLoopback() async throws {
        try #require(QRReader.isAvailable, Comment(rawValue: QRReader.missing))
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try await cli.seed([("ada", "Ada Lovelace", "1990-03-10")])

        let local = try await cli.run("feed", "url", "--qr")
        #expect(local.status == 0, "\(local.stderr)")
        let webcal = try #require(local.stdout.split(separator: "\n").first { $0.hasPrefix("webcal://127.0.0.1:8484/calendar/") })
        let code = Self.codeLines(local.stdout)
        #expect(try await QRReader.decode(code, in: directory) == String(webcal))
        #expect(local.stdout.contains("127.0.0.1 is this machine only: a phone cannot reach it."))
        // Small enough for an 80-column terminal.
        #expect(code.allSatisfy { $0.count <= 80 }, "\(code.map(\.count))")
        #expect(code.count <= 25)
        // Version 5 and the standard's quiet zone; version 4 when the random token's digit runs let
        // libqrencode encode them in its numeric mode (about one token in a few dozen).
        #expect([41, 45].contains(code.first?.count ?? 0), "version 4 or 5 and the standard's quiet zone: \(code.first?.count ?? 0)")

        let lan = try await cli.run("feed", "url", "--qr", "--host", "birthdays.example", "--port", "8443")
        let lanAddress = try #require(lan.stdout.split(separator: "\n").first { $0.hasPrefix("webcal://birthdays.example:8443/") })
        #expect(try await QRReader.decode(Self.codeLines(lan.stdout), in: directory) == String(lanAddress))
        #expect(!lan.stdout.contains("cannot reach"))
        // JSON is for programs: no code after it.
        #expect(try await cli.run("feed", "url", "--qr", "--json").status == 64)
    }

    @Test func anNtfyChannelsSubscribeLinkIsDrawn() async throws {
        try #require(QRReader.isAvailable, Comment(rawValue: QRReader.missing))
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        #expect(try await cli.run("channels", "add", "ntfy", "https://ntfy.example/birthdays-x9f2", "--name", "phone").status == 0)
        #expect(try await cli.run("channels", "add", "ntfy", "http://192.168.1.5:8080/family-7d1", "--name", "home").status == 0)
        #expect(try await cli.run("channels", "add", "email", "me@example.org").status == 0)

        let phone = try await cli.run("channels", "qr", "phone")
        #expect(phone.status == 0, "\(phone.stderr)")
        #expect(phone.stdout.hasPrefix("ntfy://ntfy.example/birthdays-x9f2\n"))
        #expect(try await QRReader.decode(Self.codeLines(phone.stdout), in: directory) == "ntfy://ntfy.example/birthdays-x9f2")

        let home = try await cli.run("channels", "qr", "home")
        #expect(try await QRReader.decode(Self.codeLines(home.stdout), in: directory) == "ntfy://192.168.1.5:8080/family-7d1?secure=false")

        let email = try await cli.run("channels", "qr", "email")
        #expect(email.status == 1)
        #expect(email.stderr == "Error: 'email' is an email channel; a subscribe code is for ntfy channels\n")
        let missing = try await cli.run("channels", "qr", "nosuch")
        #expect(missing.status == 1)
    }
}
