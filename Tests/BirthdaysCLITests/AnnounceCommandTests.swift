import BirthdayCore
import BirthdayStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `birthdays announce` (team rooms) with the real binary, Debian's `apprise`
/// posting to a loopback `json://` receiver, the JSON webhook through the real
/// `birthdays-network` helper to the same receiver, the real SQLite file and
/// `birthdays run` with a flowing pretend clock.
///
/// The team: Ada Lovelace (born 1990-03-10, with an e-mail address and a
/// note), Alan Turing (--03-10, no year) and Grace Hopper (1906-03-14, a
/// Saturday in 2026) in the group Team; Edsger Dijkstra (1930-03-10) in no
/// group. `BIRTHDAYS_NOW` starts on Tuesday 2026-03-10 at 08:00 Europe/Berlin;
/// the delivery time is 09:00. Notifications are never enabled: a room
/// delivers without any channel of the user's.
@Suite(.timeLimit(.minutes(10)))
struct AnnounceCommandTests {
    typealias Receiver = ChannelsCommandTests.Receiver

    static var appriseInstalled: Bool { ChannelsCommandTests.appriseInstalled }

    static let team = """
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:ada\r
        FN:Ada Lovelace\r
        BDAY:1990-03-10\r
        EMAIL:ada@example.org\r
        NOTE:loves cake\r
        CATEGORIES:Team\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:alan\r
        FN:Alan Turing\r
        BDAY:--03-10\r
        CATEGORIES:Team\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:grace\r
        FN:Grace Hopper\r
        BDAY:1906-03-14\r
        CATEGORIES:Team\r
        END:VCARD\r
        BEGIN:VCARD\r
        VERSION:3.0\r
        UID:edsger\r
        FN:Edsger Dijkstra\r
        BDAY:1930-03-10\r
        END:VCARD\r

        """

    static func withTeam() async throws -> CLIProcess {
        let cli = try CLIProcess()
        let imported = try await cli.run("import", try cli.write("team.vcf", team))
        try #require(imported.status == 0, "\(imported.stderr)")
        return cli
    }

    /// The JSON bodies a webhook room posted.
    static func messages(_ receiver: Receiver) throws -> [[String: Any]] {
        try receiver.received.map { try CLIProcess.object($0) }
    }

    static func rooms(_ cli: CLIProcess) async throws -> [[String: Any]] {
        try CLIProcess.array(try await cli.run("announce", "list", "--json").stdout)
    }

    /// Every byte of the database and its WAL.
    static func databaseBytes(_ cli: CLIProcess) -> String {
        [cli.databasePath, cli.databasePath + "-wal"].map {
            (try? Data(contentsOf: URL(fileURLWithPath: $0))).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        .joined()
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    // MARK: - Adding, listing, testing, removing

    @Test func aRoomIsAddedListedWithItsURLMaskedTestedAndRemoved() async throws {
        try #require(Self.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }

        let added = try await cli.run("announce", "add", receiver.url, "--group", "team")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Added team (json://… → the group Team); its next message is on Tue 10 Mar 2026 (2 people)"), "\(added.stdout)")
        let file = cli.secretsFolder + "/team.url"
        #expect(Self.mode(file) == 0o600)
        #expect(Self.mode(cli.secretsFolder) == 0o700)
        #expect((try? String(contentsOfFile: file, encoding: .utf8)) == receiver.url + "\n")
        #expect(!Self.databaseBytes(cli).contains("127.0.0.1:\(receiver.port)"), "the URL never reaches the database")

        let listed = try await Self.rooms(cli)
        let room = try #require(listed.first)
        #expect(listed.count == 1)
        #expect(room["name"] as? String == "team")
        #expect(room["group"] as? String == "Team")
        #expect(room["target"] as? String == "json://…")
        #expect(room["weekend"] as? String == "friday")
        #expect(room["ages"] as? Bool == false)
        #expect(room["next_day"] as? String == "2026-03-10")
        #expect(room["next_people"] as? Int == 2)
        let table = try await cli.run("announce")
        #expect(
            table.stdout.contains("team") && table.stdout.contains("json://…") && !table.stdout.contains(String(receiver.port)),
            "\(table.stdout)"
        )

        let tested = try await cli.run("announce", "test", "team")
        #expect(tested.status == 0, "\(tested.stderr)")
        #expect(tested.stdout == "OK    team\n")
        #expect(receiver.received.count == 1)
        let test = try #require(receiver.received.first)
        #expect(test.contains("A test from birthdays") && test.contains("Team"), "\(test)")
        #expect(!test.contains("Ada"), "a test names no one")
        #expect((try await Self.rooms(cli)).first?["last_success"] is String)

        let taken = try await cli.run("announce", "add", receiver.url, "--group", "Team")
        #expect(taken.status == 1)
        #expect(taken.stderr == "Error: a room named 'team' exists; give this one --name, or remove that one first\n")

        let removed = try await cli.run("announce", "remove", "team")
        #expect(removed.stdout == "Removed team.\n")
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try await Self.rooms(cli).isEmpty)
        let pending = try await cli.run("pending")
        #expect(!pending.stdout.contains("team"), "its pending message went with it: \(pending.stdout)")
        let again = try await cli.run("announce", "remove", "team")
        #expect(again.status == 1)
        #expect(again.stderr == "Error: there is no room named 'team'; see 'birthdays announce list'\n")
    }

    @Test(arguments: [
        ["announce", "add", "not a url", "--group", "Team"],
        ["announce", "add", "https://hooks.example.org/x", "--group", "Team", "--weekend", "sunday"],
        ["announce", "add", "https://hooks.example.org/x", "--group", "Team", "--language", "tlh"],
        ["announce", "add", "https://hooks.example.org/x", "--group", "Team", "--name", "Bad Name"],
        ["announce", "add", "https://hooks.example.org/x", "--group", "Nobody"],
        ["exclude", "--group", "Team", "--announce", "team"],
    ])
    func aBadArgumentIsAUsageErrorAndStoresNothing(_ arguments: [String]) async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let result = try await cli.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").first?.hasPrefix("Error: ") == true, "\(result.stderr)")
        #expect(try await Self.rooms(cli).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: cli.secretsFolder + "/team.url"))
    }

    @Test func aURLAppriseDoesNotUnderstandLeavesNothing() async throws {
        try #require(Self.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let bogus = try await cli.run("announce", "add", "bogus://x", "--group", "Team")
        #expect(bogus.status == 1)
        #expect(bogus.stderr.contains("apprise does not understand this URL"), "\(bogus.stderr)")
        #expect(try await Self.rooms(cli).isEmpty)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: cli.secretsFolder)) ?? []
        #expect(left.isEmpty, "no staged file is left: \(left)")
    }

    // MARK: - The day's message

    /// Through the JSON webhook: one message naming Ada and Alan, without a
    /// year, an age, a contact point, a note or anyone outside the group;
    /// exactly once however often a pass runs; nothing on a day without birthdays.
    @Test func theRoomGetsOneMessageOnTheDayNamingTheGroupsBirthdays() async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        let url = "http://127.0.0.1:\(receiver.port)/hooks/T0KEN-SECRET"
        let added = try await cli.run("announce", "add", "-", "--group", "Team", stdin: url + "\n")
        #expect(added.status == 0, "the URL read from standard input: \(added.stderr)")

        let before = try await cli.run(at: "2026-03-10T08:59:00+01:00", "deliver", "--once")
        #expect(before.status == 0, "\(before.stderr)")
        #expect(receiver.received.isEmpty, "not before the delivery time")

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        let messages = try Self.messages(receiver)
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(message["text"] as? String == "🎂 Happy birthday, Ada Lovelace and Alan Turing!")
        #expect(message["day"] as? String == "2026-03-10")
        #expect(message["room"] as? String == "team")
        let raw = receiver.received.joined()
        for secret in ["1990", "36", "ada@example.org", "cake", "Dijkstra", "Grace"] {
            #expect(!raw.contains(secret), "the message holds no \(secret): \(raw)")
        }
        #expect(!pass.stdout.contains("Ada") && !pass.stderr.contains("Ada") && !pass.stderr.contains("T0KEN"), "\(pass.stderr)")
        #expect(!Self.databaseBytes(cli).contains("T0KEN"))

        _ = try await cli.run(at: "2026-03-10T09:30:00+01:00", "deliver", "--once")
        _ = try await cli.run(at: "2026-03-10T18:00:00+01:00", "deliver", "--once")
        #expect(receiver.received.count == 1, "exactly once a day")
        let rows = try await cli.deliveries().filter { $0.notificationID == "announce:team" }
        #expect(rows.map(\.state) == [.delivered])

        // Thursday 12 March: nobody's birthday, nothing sent; Friday 13: Grace's Saturday.
        _ = try await cli.run(at: "2026-03-12T09:00:05+01:00", "deliver", "--once")
        #expect(receiver.received.count == 1, "nothing on a day without birthdays")
        _ = try await cli.run(at: "2026-03-13T09:00:05+01:00", "deliver", "--once")
        let friday = try Self.messages(receiver)
        #expect(friday.count == 2)
        #expect(friday.last?["text"] as? String == "🎂 Happy birthday, Grace Hopper!")
        #expect(friday.last?["day"] as? String == "2026-03-13")
    }

    /// A room added at 10:00, after the delivery time of a day with birthdays:
    /// today's message is sent late that day (as a reminder's is), once, and
    /// the room's next message is the one after it.
    @Test func aRoomAddedAfterItsTimeSendsTodaysMessageLateOnce() async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        let added = try await cli.run(at: "2026-03-10T10:00:00+01:00", "announce", "add", "http://127.0.0.1:\(receiver.port)/team", "--group", "Team")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("its next message is on Tue 10 Mar 2026 (2 people)"), "\(added.stdout)")

        let pass = try await cli.run(at: "2026-03-10T10:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(try Self.messages(receiver).map { $0["text"] as? String } == ["🎂 Happy birthday, Ada Lovelace and Alan Turing!"])
        let row = try #require(try await cli.deliveries().first { $0.notificationID == "announce:team" })
        #expect(row.state == .delivered && row.late && row.occurrenceDate == LocalDate(unchecked: 2026, 3, 10))
        #expect(try await Self.rooms(cli).first?["next_day"] as? String == "2026-03-13", "the next one is Grace's Friday")

        _ = try await cli.run(at: "2026-03-10T11:00:00+01:00", "deliver", "--once")
        _ = try await cli.run(at: "2026-03-10T12:00:00+01:00", "deliver", "--once")
        #expect(receiver.received.count == 1, "late, but once")
    }

    /// The machine was off from Tuesday 08:30 (the room's message for Tuesday
    /// pending) until Friday 10:00: Tuesday's is recorded as missed, and
    /// Friday's, which no run had planned, is sent late on Friday, as Grace's own
    /// reminder of the same run is.
    @Test func aMachineOffUntilAfterTheTimeMissesThePastDayAndSendsTodayLate() async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        try await cli.set("channels", "log")
        try await cli.enableNotifications()
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("announce", "add", "http://127.0.0.1:\(receiver.port)/team", "--group", "Team").status == 0)
        _ = try await cli.run(at: "2026-03-10T08:30:00+01:00", "deliver", "--once")
        #expect(receiver.received.isEmpty)

        let first = try await cli.run(at: "2026-03-13T10:00:00+01:00", "deliver", "--once")
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await cli.run(at: "2026-03-13T10:00:01+01:00", "deliver", "--once")
        #expect(second.status == 0, "\(second.stderr)")
        let rows = try await cli.deliveries()
        let room = rows.filter { $0.notificationID == "announce:team" }.sorted { $0.occurrenceDate < $1.occurrenceDate }
        #expect(room.map(\.occurrenceDate) == [LocalDate(unchecked: 2026, 3, 10), LocalDate(unchecked: 2026, 3, 13)])
        #expect(room.map(\.state) == [.missed, .delivered], "\(room.map(\.state))")
        #expect(room.last?.late == true)
        #expect(try Self.messages(receiver).map { $0["text"] as? String } == ["🎂 Happy birthday, Grace Hopper!"])
        let grace = rows.filter { $0.announceRoom == nil && $0.occurrenceDate == LocalDate(unchecked: 2026, 3, 14) }
        #expect(grace.contains { $0.state == .delivered && $0.late }, "her own day-before reminder went out late in the same run: \(grace)")
        let status = try await cli.run(at: "2026-03-13T10:00:02+01:00", "status")
        let said = "  missed \(try await cli.publicID("announce:team")) (2026-03-10)"
        #expect(status.stdout.contains(said), "the missed message is said: \(status.stdout)")
    }

    /// A name that would ping a whole room and disguise a link reaches the
    /// webhook room's JSON, an Apprise room (`json://`, through Debian's
    /// apprise) and the user's Apprise channel shown, not parsed: no `<!…>`,
    /// no `@channel`, no `[text](url)` left, and the words and the address still there.
    @Test func aNameCannotPingTheRoomOrDisguiseALink() async throws {
        try #require(Self.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let hostile = "<!everyone> @channel [prize](http://evil.example/x)"
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:evil\r\nFN:\(hostile)\r\nBDAY:1990-03-10\r\nCATEGORIES:Team\r\nEND:VCARD\r\n"
        #expect(try await cli.run("import", try cli.write("evil.vcf", card)).status == 0)
        try await cli.set("day-before", "off")
        try await cli.set("channels", "none")
        try await cli.enableNotifications()
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("announce", "add", "http://127.0.0.1:\(receiver.port)/hook", "--group", "Team", "--name", "hook").status == 0)
        #expect(try await cli.run("announce", "add", receiver.url, "--group", "Team", "--name", "chat").status == 0)
        #expect(try await cli.run("channels", "add", "apprise", receiver.url, "--name", "phone").status == 0)

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        let bodies = try Self.messages(receiver)
        let hook = bodies.compactMap { $0["room"] as? String == "hook" ? $0["text"] as? String : nil }
        let apprise = bodies.compactMap { $0["message"] as? String }
        #expect(hook.count == 1, "\(bodies)")
        let roomMessage = try #require(apprise.first { $0.contains("Happy birthday") })
        let ownReminder = try #require(apprise.first { $0.contains("prize") && !$0.contains("Happy birthday") }, "\(apprise)")
        for text in hook + [roomMessage, ownReminder] + bodies.compactMap({ $0["title"] as? String }) {
            for syntax in ["<!", "<@", "@channel", "@everyone", "](", "]["] {
                #expect(!text.contains(syntax), "\(syntax) in \(text)")
            }
        }
        for text in hook + [roomMessage] {
            #expect(text.contains("prize") && text.contains("http://evil.example/x") && text.contains("Ada Lovelace"), "\(text)")
        }
    }

    /// A room's webhook that hangs holds back no reminder: the hanging
    /// server answers only once the reminder's own ntfy receiver has its
    /// message (or gives up after a minute, past the helper's 20 s deadline).
    /// Zed's reminder comes after the room's message in the ledger's order
    /// (`announce:team` < `zed-…`), so one after the other the room would
    /// time out first and be retried; side by side both are delivered in
    /// the one pass. Asserted by the rows' states, not by time.
    @Test func aHangingRoomHoldsBackNoReminder() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:zed\r\nFN:Zed Shaw\r\nBDAY:1990-03-10\r\nCATEGORIES:Team\r\nEND:VCARD\r\n"
        #expect(try await cli.run("import", try cli.write("zed.vcf", card)).status == 0)
        try await cli.set("day-before", "off")
        try await cli.set("channels", "none")
        try await cli.enableNotifications()
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        let script = """
            import http.server, os, sys, time
            other, log = sys.argv[1], sys.argv[2]
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    self.rfile.read(int(self.headers.get('Content-Length', '0')))
                    code = 500
                    for _ in range(18000):
                        if os.path.exists(other) and os.path.getsize(other) > 0:
                            code = 200
                            break
                        time.sleep(0.01)
                    with open(log, 'a') as f:
                        f.write('released\\n' if code == 200 else 'gave up\\n')
                    self.send_response(code)
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                def log_message(self, *args):
                    pass
            server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
            server.daemon_threads = True
            print(server.server_port, flush=True)
            server.serve_forever()
            """
        let hanging = try TestProcess(
            ["/usr/bin/python3", "-c", script, receiver.log, cli.path("hanging.log")],
            environment: ["PATH": "/usr/bin:/bin"],
            name: "hanging"
        )
        defer { hanging.stop(signal: SIGKILL) }
        let port = try #require(Int(try await hanging.firstLine()))
        #expect(try await cli.run("announce", "add", "http://127.0.0.1:\(port)/hook", "--group", "Team").status == 0)
        #expect(try await cli.run("channels", "add", "ntfy", "http://127.0.0.1:\(receiver.port)/zed-topic", "--name", "phone").status == 0)

        var slow = cli
        // Long enough for the ntfy helper, started beside the room's, to start and post on a loaded machine.
        slow.extraEnvironment["BIRTHDAYS_HTTP_DEADLINE"] = "120"
        let pass = try await slow.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        let states = Dictionary(uniqueKeysWithValues: try await cli.deliveries().map { ($0.notificationID, $0.state) })
        #expect(states == ["announce:team": .delivered, "zed-birthday-dayof": .delivered], "\(states)")
        #expect((try? String(contentsOfFile: cli.path("hanging.log"), encoding: .utf8)) == "released\n")
        #expect(try Self.messages(receiver).map { $0["topic"] as? String } == ["zed-topic"])
    }

    /// The receiver fails: the message is retried alone, until it gets through, once.
    @Test func aFailedMessageIsRetriedUntilItGetsThrough() async throws {
        try #require(Self.appriseInstalled, "needs Debian's apprise (make test installs it)")
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("announce", "add", receiver.url, "--group", "Team", "--name", "room").status == 0)
        try receiver.answer(500)

        let first = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(first.stdout.contains("1 to retry"), "\(first.stdout)")
        #expect(try await cli.deliveries().map(\.state) == [.retrying])
        #expect(receiver.received.count == 1)
        let failing = try #require(try await Self.rooms(cli).first)
        #expect((failing["last_error"] as? String)?.contains("apprise exited with status 1") == true, "\(failing)")
        #expect((failing["last_error"] as? String)?.contains(String(receiver.port)) == false, "the URL is masked")
        let status = try await cli.run(at: "2026-03-10T09:00:10+01:00", "status")
        #expect(status.stdout.contains("Team rooms: room (next Fri 13 Mar 2026) failing: room could not take"), "\(status.stdout)")
        #expect(status.stdout.contains("Only the team rooms get messages: no channel of yours is on."), "\(status.stdout)")
        #expect(!status.stdout.contains(String(receiver.port)))
        let statusJSON = try await cli.run(at: "2026-03-10T09:00:10+01:00", "status", "--json").stdout
        let json = try #require(try JSONSerialization.jsonObject(with: Data(statusJSON.utf8)) as? [String: Any])
        let rooms = try #require(json["rooms"] as? [[String: Any]])
        #expect(rooms.count == 1)
        #expect(rooms.first?["name"] as? String == "room" && rooms.first?["group"] as? String == "Team", "\(rooms)")
        #expect(rooms.first?["next_day"] as? String == "2026-03-13" && rooms.first?["failing"] as? Bool == true, "\(rooms)")
        #expect((rooms.first?["last_error"] as? String)?.contains("apprise exited with status 1") == true, "\(rooms)")
        #expect(!statusJSON.contains(String(receiver.port)), "the URL is not in status --json")

        _ = try await cli.run(at: "2026-03-10T09:00:20+01:00", "deliver", "--once")
        #expect(receiver.received.count == 1, "not before the retry's time")

        try receiver.answer(200)
        _ = try await cli.run(at: "2026-03-10T09:01:00+01:00", "deliver", "--once")
        #expect(try await cli.deliveries().map(\.state) == [.delivered])
        #expect(receiver.received.count == 2)
        #expect(receiver.received.last?.contains("Happy birthday, Ada Lovelace and Alan Turing!") == true, "\(receiver.received)")
        _ = try await cli.run(at: "2026-03-10T09:05:00+01:00", "deliver", "--once")
        #expect(receiver.received.count == 2, "delivered once")
    }

    /// With the log channel on, Ada's own reminder goes to the log and the
    /// room's message to the room: neither reaches the other.
    @Test func aRoomAndTheUsersChannelsNeverGetEachOthersMessages() async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        try await cli.set("day-before", "off")
        try await cli.set("channels", "log")
        try await cli.enableNotifications()
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("announce", "add", "http://127.0.0.1:\(receiver.port)/team", "--group", "Team").status == 0)

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(try Self.messages(receiver).map { $0["text"] as? String } == ["🎂 Happy birthday, Ada Lovelace and Alan Turing!"])
        // Ada's, Alan's and Edsger's own reminders went to the log; the room's message did not.
        #expect(pass.stdout.occurrences(of: "reminder delivered") == 3, "\(pass.stdout)")
        #expect(!pass.stdout.contains(try await cli.publicID("announce:team")), "\(pass.stdout)")
        let states = Dictionary(uniqueKeysWithValues: try await cli.deliveries().map { ($0.notificationID, $0.state) })
        #expect(states["announce:team"] == .delivered)
        #expect(states.count > 1 && states.values.allSatisfy { $0 == .delivered }, "\(states)")
    }

    /// Before the permission is asked for, only the desktop waits: with the
    /// log on, `notifications test` says the desktop is held back and the
    /// others deliver; with no channel of the user's on, it says the user
    /// gets nothing, and once there is a team room, that the room still gets
    /// its messages, which the delivery pass then sends.
    @Test func whatTheTestSaysFollowsTheConsentModelAndTheRooms() async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        try await cli.set("channels", "desktop,log")
        let held = try await cli.run("notifications", "test", "--channel", "log")
        #expect(
            held.stdout.contains("holds back the desktop channel until: birthdays notifications enable; the other channels deliver"),
            "\(held.stdout)"
        )
        #expect(!held.stdout.contains("sends nothing"), "\(held.stdout)")
        try await cli.set("channels", "none")
        let nothing = try await cli.run("notifications", "test")
        #expect(nothing.stdout.contains("birthdays run sends nothing until"), "\(nothing.stdout)")
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("announce", "add", "http://127.0.0.1:\(receiver.port)/team", "--group", "Team").status == 0)
        let rooms = try await cli.run("notifications", "test")
        #expect(
            rooms.stdout.contains("sends you nothing until: birthdays notifications enable (the team rooms still get their messages)"),
            "\(rooms.stdout)"
        )

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(try Self.messages(receiver).count == 1)
        let said = pass.stdout + pass.stderr
        #expect(said.contains("only the team rooms get their messages"), "\(said)")
        #expect(!said.contains("nothing is delivered"), "\(said)")
    }

    /// A trial at pretend time (no BIRTHDAYS_NOW_WRITES) reaches the room through
    /// its throwaway copy, URL file included; the real ledger is untouched.
    @Test func aTrialAtPretendTimeReachesTheRoomAndWritesNothing() async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("announce", "add", "http://127.0.0.1:\(receiver.port)/team", "--group", "Team").status == 0)
        let trial = try ChannelTruthTests.trial(of: cli)
        let pass = try await trial.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(receiver.received.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.path("tmp")).isEmpty, "the copy and its URL file are gone")
        #expect(try await cli.deliveries().isEmpty, "the trial wrote its copy only")
    }

    // MARK: - Weekends, exclusion, ages, languages

    /// Grace's Saturday (14 March) on the Friday before, the Monday after, or the day itself.
    @Test func aWeekendBirthdayIsAnnouncedAsEachRoomChose() async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("exclude", "Ada").status == 0)
        #expect(try await cli.run("exclude", "Alan").status == 0)
        for rule in ["friday", "monday", "off"] {
            let added = try await cli.run(
                "announce",
                "add",
                "http://127.0.0.1:\(receiver.port)/\(rule)",
                "--group",
                "Team",
                "--name",
                rule,
                "--weekend",
                rule
            )
            #expect(added.status == 0, "\(added.stderr)")
        }
        let next = Dictionary(uniqueKeysWithValues: try await Self.rooms(cli).map { ($0["name"] as? String ?? "", $0["next_day"] as? String ?? "") })
        #expect(next == ["friday": "2026-03-13", "monday": "2026-03-16", "off": "2026-03-14"])

        for day in ["2026-03-13", "2026-03-14", "2026-03-15", "2026-03-16"] {
            _ = try await cli.run(at: day + "T09:00:05+01:00", "deliver", "--once")
        }
        let sent = try Self.messages(receiver).map { "\($0["room"] as? String ?? "") \($0["day"] as? String ?? "")" }
        #expect(sent == ["friday 2026-03-13", "off 2026-03-14", "monday 2026-03-16"])
        #expect(try Self.messages(receiver).allSatisfy { $0["text"] as? String == "🎂 Happy birthday, Grace Hopper!" })
    }

    @Test func aPersonLeftOutOfARoomIsNotNamedThereAndCanComeBack() async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("announce", "add", "http://127.0.0.1:\(receiver.port)/team", "--group", "Team").status == 0)

        let excluded = try await cli.run("exclude", "Alan", "--announce", "team")
        #expect(excluded.status == 0, "\(excluded.stderr)")
        #expect(excluded.stdout == "Alan Turing is left out of the room team (undo with birthdays include PERSON --announce team).\n")
        let room = try #require(try await Self.rooms(cli).first)
        #expect(room["excluded"] as? Int == 1)
        #expect(room["next_people"] as? Int == 1)
        let nosuch = try await cli.run("exclude", "Alan", "--announce", "nosuch")
        #expect(nosuch.status == 1)
        #expect(nosuch.stderr == "Error: there is no room named 'nosuch'; see 'birthdays announce list'\n")

        // An import that rewrites his card keeps the choice.
        let rewritten = Self.team.replacingOccurrences(of: "FN:Alan Turing\r\n", with: "FN:Alan Turing\r\nNICKNAME:Prof\r\n")
        let imported = try await cli.run("import", try cli.write("team-again.vcf", rewritten))
        #expect(imported.stdout.contains("1 updated"), "\(imported.stdout)")
        #expect(try await Self.rooms(cli).first?["excluded"] as? Int == 1)

        _ = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(try Self.messages(receiver).map { $0["text"] as? String } == ["🎂 Happy birthday, Ada Lovelace!"])
        let show = try await cli.run("show", "Alan")
        #expect(show.status == 0 && !show.stdout.lowercased().contains("exclu"), "only the room leaves him out: \(show.stdout)")

        let included = try await cli.run("include", "Alan", "--announce", "team")
        #expect(included.stdout == "Alan Turing is announced in the room team again.\n")
        #expect(try await Self.rooms(cli).first?["excluded"] as? Int == 0)
    }

    /// `--ages` says the age turned when the year is known; `--language` writes the room's language.
    @Test func agesAndTheRoomsLanguage() async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        let url = "http://127.0.0.1:\(receiver.port)/"
        #expect(try await cli.run("announce", "add", url + "de", "--group", "Team", "--name", "de", "--ages", "--language", "de").status == 0)
        #expect(try await cli.run("announce", "add", url + "ja", "--group", "Team", "--name", "ja", "--language", "ja-JP").status == 0)
        try await cli.set("language", "fr")
        #expect(try await cli.run("announce", "add", url + "fr", "--group", "Team", "--name", "fr").status == 0)
        _ = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        let texts = Dictionary(uniqueKeysWithValues: try Self.messages(receiver).map { ($0["room"] as? String ?? "", $0["text"] as? String ?? "") })
        #expect(
            texts == [
                "de": "🎂 Alles Gute zum Geburtstag, Ada Lovelace (36) und Alan Turing!",
                "ja": "🎂 Ada Lovelace、Alan Turing、お誕生日おめでとうございます！",
                "fr": "🎂 Joyeux anniversaire, Ada Lovelace et Alan Turing !",
            ]
        )
    }

    // MARK: - The daemon

    /// `birthdays run` announces at the delivery time, once, and a restart
    /// the same day does not announce again; its log names no one and holds no URL.
    @Test func theDaemonAnnouncesAtTheDeliveryTimeOnceAcrossRestarts() async throws {
        let cli = try await Self.withTeam()
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        let url = "http://127.0.0.1:\(receiver.port)/hooks/T0KEN-SECRET"
        #expect(try await cli.run("announce", "add", url, "--group", "Team").status == 0)

        let daemon = try cli.daemon(now: "2026-03-10T08:59:57+01:00")
        try await daemon.waitUntil("the message") { _ in !receiver.received.isEmpty }
        try await daemon.waitUntil("the pass to be recorded") { $0.stderr.contains("delivered=1") && $0.stderr.occurrences(of: "next pass") >= 2 }
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(try Self.messages(receiver).map { $0["text"] as? String } == ["🎂 Happy birthday, Ada Lovelace and Alan Turing!"])

        let again = try cli.daemon(now: "2026-03-10T09:00:30+01:00", name: "daemon-again")
        try await again.waitUntil("a pass") { $0.stderr.occurrences(of: "next pass") >= 1 }
        again.signal(SIGTERM)
        #expect(try await again.waitForExit() == 0)
        #expect(receiver.received.count == 1, "not again after a restart")
        #expect(try await cli.deliveries().filter { $0.notificationID == "announce:team" }.map(\.state) == [.delivered])
        for log in [daemon.stdout, daemon.stderr, again.stdout, again.stderr] {
            #expect(!log.contains("Ada") && !log.contains("Alan") && !log.contains("T0KEN"), "\(log)")
        }
    }
}
