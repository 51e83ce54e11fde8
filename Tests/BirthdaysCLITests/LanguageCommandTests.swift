import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The commands' words follow LC_ALL, LC_MESSAGES and LANG (in that order),
/// and the `language` setting over them; `--json` keys stay English.
/// Serialized: its tests block a thread on the binary, which the async tests need too.
@Suite(.serialized) struct LanguageCommandTests {
    /// Ada (turns 36 tomorrow) and Bob (no year, in 10 days), at 08:00 Berlin on 2026-03-10.
    func seeded(_ environment: [String: String] = [:]) async throws -> CLIProcess {
        var cli = try CLIProcess()
        try await Seed.twoPeople(cli)
        cli.extraEnvironment = environment
        return cli
    }

    @Test func upcomingFollowsLang() async throws {
        let cli = try await seeded(["LANG": "de_DE.UTF-8"])
        defer { cli.cleanUp() }
        await #expect(
            try cli.run("upcoming").stdout == "morgen       Mi., 11. März  Ada  Geburtstag, wird 36\nin 10 Tagen  Fr., 20. März  Bob  Geburtstag\n"
        )
        // Nothing today prints nothing (for a prompt or a status bar); a longer wait says so.
        await #expect(try cli.run("upcoming", "--days", "0").stdout == "")
        await #expect(try cli.run("upcoming", "--days", "0").status == 0)
        // The JSON is the same in every language.
        let json = try await CLIProcess.array(try cli.run("upcoming", "--json").stdout)
        #expect(json.first?["kind"] as? String == "birthday")
    }

    @Test func lcAllBeatsLcMessagesBeatsLang() async throws {
        let cli = try await seeded(["LANG": "de_DE.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8", "LC_ALL": "fr_FR.UTF-8"])
        defer { cli.cleanUp() }
        await #expect(try cli.run("upcoming").stdout.hasPrefix("demain         mer. 11 mars  Ada  anniversaire, 36 ans\n"))
        var messages = cli
        messages.extraEnvironment["LC_ALL"] = ""
        await #expect(try messages.run("upcoming").stdout.hasPrefix("明日    3月11日(水)  Ada  誕生日、36歳になります\n"))
    }

    @Test(arguments: ["C", "POSIX", "C.UTF-8", "sv_SE.UTF-8", "zh_TW.UTF-8"])
    func untranslatedLocalesAreEnglish(lang: String) async throws {
        let cli = try await seeded(["LANG": lang])
        defer { cli.cleanUp() }
        await #expect(try cli.run("upcoming").stdout.hasPrefix("tomorrow    Wed 11 Mar  Ada  birthday, turns 36\n"))
    }

    /// The setting wins over the environment, and changing it plans the pending reminders again in the new language.
    @Test func languageSettingOverridesTheEnvironmentAndReschedules() async throws {
        let cli = try await seeded(["LANG": "de_DE.UTF-8"])
        defer { cli.cleanUp() }
        try await cli.enableNotifications()
        let german = try await CLIProcess.array(try cli.run("pending", "--json").stdout)
        #expect(german.first?["title"] as? String == "Morgen ist ein Geburtstag")
        #expect(german.first?["body"] as? String == "Ada wird morgen 36!")

        try await cli.set("language", "pl")
        let polish = try await CLIProcess.array(try cli.run("pending", "--json").stdout)
        #expect(
            polish.map { $0["body"] as? String } == [
                "Ada kończy jutro 36 lat!", "Ada kończy dziś 36 lat!", "Jutro urodziny obchodzi Bob!", "Dziś urodziny obchodzi Bob!",
            ]
        )
        #expect(
            Set(polish.first?.keys ?? [:].keys) == [
                "id", "short_id", "person_id", "kind", "calendar", "when", "fire_at", "snoozed", "title", "body", "zone",
            ]
        )
        await #expect(try cli.run("pending").stdout.hasPrefix("ID      WYSYŁKA           KIEDY        TYTUŁ"))
        await #expect(CLIProcess.shownSetting("language", in: try cli.run("settings", "show").stdout) == "pl")

        let unknown = try await cli.run("settings", "set", "language", "klingon")
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("allowed: system, or one of en, de, es, fr, it, ja, nl, pl, pt, zh-Hans"))
    }

    @Test func showFollowsTheLanguage() async throws {
        let cli = try await seeded(["LANG": "pl_PL.UTF-8"])
        defer { cli.cleanUp() }
        await #expect(try cli.run("show", "ada").stdout == "Ada\nId: ada\nUrodziny: 1990-03-11; najbliższe 2026-03-11 (jutro), kończy 36 lat\n")
    }

    @Test func onboardingFollowsTheLanguage() async throws {
        let cli = try await seeded(["LANG": "es_ES.UTF-8"])
        defer { cli.cleanUp() }
        let result = try await cli.run("onboard", "--no-contacts", "--no-notifications")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                ¡Bienvenido a birthdays!
                Importa los cumpleaños de tus contactos y recibe un recordatorio el día antes y el mismo día.

                No vuelvas a olvidar un cumpleaños
                Recibe un aviso el día antes y el mismo día de cada cumpleaños para tener siempre tiempo de prepararte.

                Sin problema. Activa los recordatorios cuando quieras con: birthdays notifications enable
                Todo listo.

                """
        )
    }

    /// The feed's titles (emoji off), descriptions and alarm texts.
    @Test func exportFollowsTheLanguage() async throws {
        let cli = try await seeded(["LANG": "nl_NL.UTF-8"])
        defer { cli.cleanUp() }
        try await cli.set("emoji", "off")
        let ics = try await cli.run("export").stdout.replacingOccurrences(of: "\r\n ", with: "")
        #expect(ics.contains("SUMMARY:Verjaardag van Ada\r\n"))
        #expect(ics.contains("DESCRIPTION:geboren in 1990\r\n"))
        #expect(ics.contains("DESCRIPTION:Vandaag is Ada jarig!\r\n"))
        #expect(ics.contains("DESCRIPTION:Ada is morgen jarig!\r\n"))
    }

    /// The daemon plans in its own environment's language (here Polish) and delivers those words.
    @Test func theDaemonDeliversInItsLanguage() async throws {
        let cli = try await CLIProcess.withAda(enableNotifications: false)
        defer { cli.cleanUp() }
        let outfile = cli.path("command.env")
        try await cli.set("channels", "command")
        try await cli.set("command", "env | grep ^BIRTHDAYS_ >> '\(outfile)'")
        try await cli.enableNotifications()
        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00", extraEnvironment: ["LANG": "pl_PL.UTF-8"])
        try await daemon.waitUntil("the command's output") { _ in
            ((try? String(contentsOfFile: outfile, encoding: .utf8)) ?? "").contains("BIRTHDAYS_LATE=")
        }
        let text = try String(contentsOfFile: outfile, encoding: .utf8)
        #expect(text.contains("BIRTHDAYS_TITLE=Urodziny: Ada Lovelace!\n"))
        #expect(text.contains("BIRTHDAYS_BODY=Ada Lovelace kończy dziś 36 lat!\n"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
    }
}
