import Foundation
import TestSupport
import Testing

/// Where `make manual` (swift-argument-parser's generate-manual, run on the built binary) writes the man page.
enum GeneratedManual {
    static let url = Repository.root.appendingPathComponent(".build/manual/birthdays.1")
    static var exists: Bool { FileManager.default.fileExists(atPath: url.path) }
    static let missing = "no generated man page: run `make manual` (make test does) before swift test"
}

/// `make install` under a temporary prefix: the Makefile's `install-files`
/// step (what `make install` runs after building) with the binary these
/// tests run and the man page `make manual` generated, then each installed
/// file used the way its reader uses it, then `make uninstall`.
/// Serialized: each test blocks a thread on `make` and the shells, and Swift
/// concurrency has only as many threads as cores to share with the async tests.
@Suite(.serialized, .enabled(if: GeneratedManual.exists, Comment(rawValue: GeneratedManual.missing)))
struct InstallTests {
    /// An installed tree in a temporary prefix, removed by `cleanUp()`.
    struct Installed {
        let prefix: URL

        init() async throws {
            prefix = FileManager.default.temporaryDirectory.appendingPathComponent("birthdays-install-" + UUID().uuidString)
            let result = try await make("install-files")
            try #require(result.status == 0, "make install-files failed: \(result.stderr)")
        }

        func path(_ relative: String) -> String { prefix.appendingPathComponent(relative).path }

        func make(_ target: String) async throws -> TestProcess.Result {
            try await TestProcess.run(
                [
                    "/usr/bin/env", "make", "--no-print-directory", "-C", Repository.root.path, target, "PREFIX=" + prefix.path,
                    "BINARY=" + (try CLIProcess.binary()), "MANUAL=" + GeneratedManual.url.path,
                ]
            )
        }

        func cleanUp() { try? FileManager.default.removeItem(at: prefix) }
    }

    static let files = [
        ("bin/birthdays", 0o755),
        ("bin/birthdays-network", 0o755),
        ("share/man/man1/birthdays.1", 0o644),
        ("share/bash-completion/completions/birthdays", 0o644),
        ("share/zsh/site-functions/_birthdays", 0o644),
        ("share/fish/vendor_completions.d/birthdays.fish", 0o644),
        ("share/birthdays/systemd/birthdays.service", 0o644),
        ("share/birthdays/systemd/birthdays-deliver.service", 0o644),
        ("share/birthdays/systemd/birthdays-deliver.timer", 0o644),
    ]

    @Test func installsEveryFileAndUninstallRemovesThem() async throws {
        let installed = try await Installed()
        defer { installed.cleanUp() }
        for (file, mode) in Self.files {
            let attributes = try FileManager.default.attributesOfItem(atPath: installed.path(file))
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(file)")
            #expect((attributes[.size] as? Int ?? 0) > 0, "\(file) is empty")
        }
        let version = try await TestProcess.run([installed.path("bin/birthdays"), "--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty)
        // Stripped (issue 24): smaller than what was built, and still runs.
        for (built, file) in [(try CLIProcess.binary(), "bin/birthdays"), (try InstalledHelper.built(), "bin/birthdays-network")] {
            let before = try FileManager.default.attributesOfItem(atPath: built)[.size] as? Int ?? 0
            let after = try FileManager.default.attributesOfItem(atPath: installed.path(file))[.size] as? Int ?? 0
            #expect(after < before, "\(file): \(after) bytes installed, \(before) built")
        }
        let help = try await TestProcess.run([installed.path("bin/birthdays-network"), "--help"])
        #expect(help.status == 0 && help.stdout.contains("birthdays-network"), "\(help.stderr)")

        let uninstall = try await installed.make("uninstall")
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        for (file, _) in Self.files {
            #expect(!FileManager.default.fileExists(atPath: installed.path(file)), "\(file) is left")
        }
        #expect(!FileManager.default.fileExists(atPath: installed.path("share/birthdays")))
    }

    /// The installed `birthdays` runs the network helper installed next to it:
    /// adding an unreachable server fails with the network's reason, not with a
    /// missing helper.
    @Test func theInstalledBinaryFindsItsNetworkHelper() async throws {
        let installed = try await Installed()
        defer { installed.cleanUp() }
        let database = installed.path("birthdays.sqlite")
        let add = try await TestProcess.run(
            [installed.path("bin/birthdays"), "sources", "add", "http://127.0.0.1:9/", "--database", database],
            environment: ["PATH": "/usr/bin:/bin", "HOME": installed.prefix.path]
        )
        #expect(add.status == 1)
        #expect(add.stderr.hasPrefix("Error: cannot reach http://127.0.0.1:9/"), "\(add.stderr)")
        #expect(!add.stderr.contains("birthdays-network"), "\(add.stderr)")
    }

    /// The man page renders without a warning from groff and documents the commands.
    @Test(.enabled(if: SystemTools.path("man") != nil, "needs man (apt install man-db)"))
    func manPageRenders() async throws {
        let installed = try await Installed()
        defer { installed.cleanUp() }
        let result = try await TestProcess.run(
            ["/usr/bin/env", "man", "--warnings", "-l", installed.path("share/man/man1/birthdays.1")],
            environment: ["PATH": "/usr/bin:/bin", "MANPAGER": "cat", "MANWIDTH": "100", "LANG": "C.UTF-8", "HOME": installed.prefix.path]
        )
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "groff warnings: \(result.stderr)")
        for text in ["birthdays", "import", "upcoming", "--date-order", "Never miss a birthday"] {
            #expect(result.stdout.contains(text), "the man page lacks \(text)")
        }
    }

    /// Loaded as bash-completion loads it (with extglob on), `birthdays <Tab>` offers the commands.
    @Test(.enabled(if: SystemTools.path("bash") != nil, "needs bash"))
    func bashCompletionLoads() async throws {
        let installed = try await Installed()
        defer { installed.cleanUp() }
        let script = """
            shopt -s extglob
            source "$1" || exit 1
            complete -p birthdays || exit 1
            COMP_WORDS=(birthdays im); COMP_CWORD=1; COMP_LINE="birthdays im"; COMP_POINT=${#COMP_LINE}
            _birthdays birthdays im birthdays
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try await TestProcess.run(
            ["/usr/bin/env", "bash", "--norc", "--noprofile", "-c", script, "bash", installed.path("share/bash-completion/completions/birthdays")]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("complete -o filenames -F _birthdays birthdays"))
        #expect(result.stdout.split(separator: "\n").contains("import"), "\(result.stdout)")
    }

    /// Completions offer values (issue 24): the settings `set` takes, without
    /// the alias day-before; the people and the sources of the database.
    @Test(.enabled(if: SystemTools.path("bash") != nil, "needs bash"))
    func bashCompletionOffersSettingsPeopleAndSources() async throws {
        let installed = try await Installed()
        defer { installed.cleanUp() }
        let binary = installed.path("bin/birthdays")
        let environment = ["PATH": "/usr/bin:/bin", "HOME": installed.prefix.path, "BIRTHDAYS_DATABASE": installed.path("birthdays.sqlite")]
        let cards = installed.path("phone.vcf")
        try (SourcesCommandTests.card("ada", "Ada Lovelace", "1990-03-11") + SourcesCommandTests.card("zoe", "Zoe Adams", "1985-07-01"))
            .write(toFile: cards, atomically: true, encoding: .utf8)
        let added = try await TestProcess.run([binary, "sources", "add", cards, "--name", "Phone"], environment: environment)
        try #require(added.status == 0, "\(added.stderr)")
        // `birthdays WORDS… <Tab>`, as bash-completion runs it.
        func complete(_ words: String...) async throws -> [String] {
            let script = """
                shopt -s extglob
                source "$1" || exit 1
                shift
                COMP_WORDS=("$@" ''); COMP_CWORD=$#; COMP_LINE="$* "; COMP_POINT=${#COMP_LINE}
                _birthdays "$1" '' "${@: -1}"
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try await TestProcess.run(
                [
                    "/usr/bin/env", "bash", "--norc", "--noprofile", "-c", script, "bash",
                    installed.path("share/bash-completion/completions/birthdays"), binary,
                ]
                    + words,
                environment: environment
            )
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        let keys = try await complete("settings", "set")
        #expect(keys.contains("delivery-time") && keys.contains("language") && keys.contains("leap-day"), "\(keys)")
        #expect(!keys.contains("day-before"), "the alias is not offered: \(keys)")
        let leapDay = try await complete("settings", "set", "leap-day")
        #expect(Set(leapDay) == ["feb28", "mar1"], "\(leapDay)")
        let languages = try await complete("settings", "set", "language")
        #expect(languages.contains("system") && languages.contains("de") && languages.contains("zh-Hans"), "\(languages)")
        let people = try await complete("exclude")
        #expect(people.contains { $0.contains("Lovelace") } && people.contains { $0.contains("Adams") }, "\(people)")
        #expect(try await complete("sources", "remove") == ["Phone"])
        // A user who does not exist has no people to offer, never the default database's.
        #expect(try await complete("--user", "nobody", "exclude").isEmpty)
        #expect(try await complete("exclude", "--user=nobody").isEmpty)
    }

    /// Found by compinit in site-functions, and its function loads.
    @Test(.enabled(if: SystemTools.path("zsh") != nil, "needs zsh (apt install zsh)"))
    func zshCompletionLoads() async throws {
        let installed = try await Installed()
        defer { installed.cleanUp() }
        let script = """
            fpath=("$1" $fpath)
            autoload -Uz compinit && compinit -u -D || exit 1
            print -r -- "comps: ${_comps[birthdays]}"
            autoload -Uz +X _birthdays || exit 1
            whence -w _birthdays
            """
        let result = try await TestProcess.run(
            ["/usr/bin/env", "zsh", "-f", "-c", script, "zsh", installed.path("share/zsh/site-functions")],
            environment: ["PATH": "/usr/bin:/bin", "HOME": installed.prefix.path]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("comps: _birthdays"), "\(result.stdout)")
        #expect(result.stdout.contains("_birthdays: function"), "\(result.stdout)")
    }

    /// fish finds it among the vendor completions of XDG_DATA_DIRS and completes `birthdays im` to import.
    @Test(.enabled(if: SystemTools.path("fish") != nil, "needs fish (apt install fish)"))
    func fishCompletionLoads() async throws {
        let installed = try await Installed()
        defer { installed.cleanUp() }
        let result = try await TestProcess.run(
            ["/usr/bin/env", "fish", "-c", "complete -C 'birthdays im'"],
            environment: [
                "PATH": installed.path("bin") + ":/usr/bin:/bin", "HOME": installed.prefix.path,
                "XDG_DATA_DIRS": installed.path("share") + ":/usr/share", "XDG_CONFIG_HOME": installed.path("config"),
            ]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("import\t"), "\(result.stdout)")
    }

    /// The units run the installed binary, not ~/.local/bin's.
    @Test func systemdUnitsPointAtTheInstalledBinary() async throws {
        let installed = try await Installed()
        defer { installed.cleanUp() }
        let service = try String(contentsOfFile: installed.path("share/birthdays/systemd/birthdays.service"), encoding: .utf8)
        #expect(service.contains("\nExecStart=\(installed.path("bin/birthdays")) run\n"))
        let deliver = try String(contentsOfFile: installed.path("share/birthdays/systemd/birthdays-deliver.service"), encoding: .utf8)
        #expect(deliver.contains("\nExecStart=\(installed.path("bin/birthdays")) deliver --once\n"))
        #expect(!service.contains("%h/.local/bin") && !deliver.contains("%h/.local/bin"))
    }
}

/// The network helper next to the binary the tests run.
enum InstalledHelper {
    static func built() throws -> String {
        URL(fileURLWithPath: try CLIProcess.binary()).deletingLastPathComponent().appendingPathComponent("birthdays-network").path
    }
}
