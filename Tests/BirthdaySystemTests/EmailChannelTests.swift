import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdaySystem
@testable import BirthdayText

extension DeliveryTests {
    /// The e-mail channel: a stand-in sendmail for the exit statuses, then the
    /// real msmtp sending to a real SMTP server (aiosmtpd) on loopback.
    @Suite(.timeLimit(.minutes(10)))
    struct EmailChannelTests {
        static let now = Date(timeIntervalSince1970: 1_773_129_600)
        static let to = EmailAddress(address: "ada@example.org", displayName: "Ada Lovelace")

        /// A sendmail that writes its arguments and its input to `$OUT`,
        /// prints two lines of error output and exits with `$STATUS`.
        static func fakeSendmail(in directory: TemporaryDirectory) async throws -> String {
            try await directory.writeProgram(
                "sendmail",
                """
                #!/bin/sh
                printf '%s\\n' "$@" > "$OUT/argv"
                cat > "$OUT/message"
                echo "sendmail: recipient address not accepted by the server" >&2
                echo "sendmail: server message: 550 5.1.1 no such user" >&2
                echo "sendmail: could not send mail (account default from ~/.msmtprc)" >&2
                exit "$STATUS"

                """
            )
        }

        static func channel(sendmail: String?, environment: [String: String], timeout: Duration = .seconds(60)) -> EmailChannel {
            EmailChannel(
                name: "mail",
                to: to,
                from: nil,
                sendmail: sendmail,
                environment: environment,
                host: "laptop",
                timeout: timeout,
                now: { now },
                token: { [0xAB, 0x01] }
            )
        }

        // MARK: The sendmail interface

        @Test func theMessageGoesOnStandardInputWithTheAddressesAsArguments() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let program = try await Self.fakeSendmail(in: directory)
            let channel = Self.channel(sendmail: program, environment: ["PATH": "/usr/bin:/bin", "OUT": directory.path, "STATUS": "0"])
            let reminder = sampleReminder(title: "Zoë's birthday", body: "Zoë turns 37 today")

            try await channel.deliver(reminder)

            let argv = try String(contentsOfFile: directory.file("argv"), encoding: .utf8)
            // No sender of its own: the program's configuration chooses it (msmtp: the account's `from`).
            #expect(argv == "-i\n--\nada@example.org\n")
            let sent = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("message"))))
            #expect(sent == EmailMessage.reminder(reminder, from: nil, to: Self.to, host: "laptop", now: Self.now, token: [0xAB, 0x01]).bytes)
            #expect(!String(decoding: sent, as: UTF8.self).contains("From:"), "no From of our invention")
        }

        @Test(
            arguments: [
                (75, false), (69, false), (1, false), (70, false), (64, true), (65, true), (67, true), (68, true), (77, true), (78, true),
            ] as [(Int32, Bool)]
        )
        func theExitStatusSaysWhetherToRetry(status: Int32, permanent: Bool) async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let program = try await Self.fakeSendmail(in: directory)
            let channel = Self.channel(sendmail: program, environment: ["PATH": "/usr/bin:/bin", "OUT": directory.path, "STATUS": "\(status)"])

            let error = await #expect(throws: DeliveryError.self) {
                try await channel.deliver(sampleReminder(title: "Zoë's birthday", body: "Zoë turns 37 today"))
            }
            let reason = "\(program) exited with status \(status): sendmail: server message: 550 5.1.1 no such user"
            #expect(error == (permanent ? .remoteRefused(channel: "mail", reason: reason) : .remoteUnavailable(channel: "mail", reason: reason)))
            #expect(error?.isPermanent == permanent)
            #expect(!(error?.description.contains("Zoë") ?? true))
        }

        @Test func aSignalOrTheTimeoutIsRetried() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let killed = try await directory.writeProgram("killed", "#!/bin/sh\ncat >/dev/null\nkill -9 $$\n")
            let hanging = try await directory.writeProgram("hanging", "#!/bin/sh\ncat >/dev/null\nexec sleep 60\n")
            let environment = ["PATH": "/usr/bin:/bin"]

            let signalled = await #expect(throws: DeliveryError.self) {
                try await Self.channel(sendmail: killed, environment: environment).deliver(sampleReminder())
            }
            #expect(signalled == .remoteUnavailable(channel: "mail", reason: "\(killed) was killed by signal 9"))

            let started = ContinuousClock.now
            let timedOut = await #expect(throws: DeliveryError.self) {
                try await Self.channel(sendmail: hanging, environment: environment, timeout: .milliseconds(200)).deliver(sampleReminder())
            }
            #expect(ContinuousClock.now - started < .seconds(30))
            guard case .remoteUnavailable(let channel, let reason) = timedOut else {
                Issue.record("expected remoteUnavailable, got \(String(describing: timedOut))")
                return
            }
            #expect(channel == "mail")
            #expect(reason.contains("did not finish within"))
        }

        @Test func aProgramThatCannotStartIsRetried() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            // Executable, but not a program the kernel can run.
            let broken = try await directory.writeProgram("sendmail", "\u{7F}ELF not really")
            let error = await #expect(throws: DeliveryError.self) {
                try await Self.channel(sendmail: broken, environment: [:]).deliver(sampleReminder())
            }
            #expect(error?.isPermanent == false)
            #expect(error?.description.contains("cannot start") == true)
        }

        @Test func withoutAProgramTheChannelIsRefusedWithWhatToInstall() async throws {
            let error = await #expect(throws: DeliveryError.self) {
                try await Self.channel(sendmail: "/nonexistent/sendmail", environment: [:]).deliver(sampleReminder())
            }
            #expect(error?.isPermanent == true)
            let text = error?.description ?? ""
            for needed in ["/nonexistent/sendmail", "--sendmail", "/usr/sbin/sendmail", "msmtp (Debian package msmtp"] {
                #expect(text.contains(needed), "\(needed)")
            }
        }

        @Test func theProgramIsTheGivenOneElseSendmailElseMsmtpOnPath() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let msmtp = try await directory.writeProgram("msmtp", "#!/bin/sh\n")
            let plain = try directory.write("plain", "not executable")
            #expect(EmailChannel.sendmailProgram(explicit: msmtp, environment: [:]) == msmtp)
            #expect(EmailChannel.sendmailProgram(explicit: plain, environment: [:]) == nil)
            #expect(EmailChannel.sendmailProgram(explicit: directory.path, environment: [:]) == nil)
            let system = FileManager.default.isExecutableFile(atPath: EmailChannel.systemSendmail) ? EmailChannel.systemSendmail : nil
            #expect(EmailChannel.sendmailProgram(explicit: nil, environment: ["PATH": "relative:" + directory.path]) == system ?? msmtp)
            #expect(EmailChannel.sendmailProgram(explicit: nil, environment: ["PATH": "/nonexistent"]) == system)
        }

        @Test func theReasonIsTheLastTellingLineOnOneShortLine() {
            let msmtp =
                "msmtp: recipient address x@y.org not accepted by the server\nmsmtp: server message: 550 5.1.1 no\u{1B}[2J user\r\n"
                + "msmtp: could not send mail (account default from /home/ada/.msmtprc)\n\n"
            #expect(EmailChannel.lastLine(of: Array(msmtp.utf8)) == "msmtp: server message: 550 5.1.1 no [2J user")
            #expect(
                EmailChannel.lastLine(of: Array("msmtp: could not send mail (account default)\n".utf8))
                    == "msmtp: could not send mail (account default)"
            )
            let long = EmailChannel.lastLine(of: Array(String(repeating: "é", count: 1000).utf8))
            #expect(long?.count == 300)
            #expect(EmailChannel.lastLine(of: Array(" \n\n".utf8)) == nil)
        }

        /// A real SMTP server (aiosmtpd) answering with `handler`, and the
        /// channel sending to it through the real msmtp, in a directory of its own.
        static func throughMsmtp(handler: SMTPServer.Handler = .mailbox) async throws -> (SMTPServer, TemporaryDirectory, EmailChannel) {
            let server = try await SMTPServer(handler: handler)
            let directory = try TemporaryDirectory()
            let sendmail = try await server.writeMsmtpWrapper(into: directory)
            return (server, directory, channel(sendmail: sendmail, environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path]))
        }

        // MARK: Through msmtp to a real SMTP server

        @Test(.enabled(if: SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing)))
        func eachReminderArrivesOnceWithItsNameIntact() async throws {
            let (server, directory, channel) = try await Self.throughMsmtp()
            defer { server.cleanUp() }
            defer { directory.cleanup() }
            let names = [
                "Zoë Ñúñez", "李小龍", "Ada 🎂👩‍👩‍👧 Lovelace", "Eve\r\nBcc: x@y", String(repeating: "Zoë ", count: 50), String(repeating: "漢", count: 200),
            ]

            var seen: Set<String> = []
            for (index, name) in names.enumerated() {
                var reminder = sampleReminder(id: "r-\(index)", title: "\(name)'s birthday", body: "\(name) turns 37 today")
                reminder.logID = "r-\(index)"
                try await channel.deliver(reminder)

                // The server wrote the message before it said 250, so it is there once msmtp is done.
                let arrived = Set(server.messages()).subtracting(seen)
                #expect(arrived.count == 1, "\(server.log)")
                let file = try #require(arrived.first)
                seen.insert(file)
                let message = try await PythonMail.parse(file: file)
                #expect(message.values("Message-ID") == ["<ab01@birthdays.laptop>"])
                #expect(message.defects.isEmpty)
                for header in message.headers { #expect(header.defects.isEmpty, "\(header.name)") }
                #expect(message.values("Subject") == [SafeText.line(name + " turns 37 today")])
                #expect(message.values("Bcc").isEmpty)
                // Ours, the From msmtp adds from its account's `from` (the channel has no --from),
                // and the three the Mailbox handler adds.
                #expect(
                    message.headers.map(\.name).filter { $0 != "From" } == [
                        "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type", "Content-Transfer-Encoding",
                        "X-Peer", "X-MailFrom", "X-RcptTo",
                    ]
                )
                #expect(message.values("From") == ["birthdays-test@example.org"])
                #expect(message.values("X-MailFrom") == ["birthdays-test@example.org"])
                #expect(message.values("X-RcptTo") == ["ada@example.org"])
                #expect(message.to?.name == "Ada Lovelace")
                #expect(message.body.hasPrefix(SafeText.line(name + "'s birthday") + "\n" + SafeText.line(name + " turns 37 today") + "\n"))
            }
        }

        /// The person's link reaches the mailbox only with `contact-links` on:
        /// the same reminder sent twice through msmtp, off and then on.
        @Test(.enabled(if: SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing)))
        func theContactLinkReachesTheMailboxOnlyWithContactLinksOn() async throws {
            let (server, directory, channel) = try await Self.throughMsmtp()
            defer { server.cleanUp() }
            defer { directory.cleanup() }
            var bodies: [Bool: String] = [:]
            var seen: Set<String> = []
            for sharing in [false, true] {
                var reminder = ContactLinkPayloadTests.reminder(sharing: sharing)
                reminder.logID = sharing ? "r-on" : "r-off"
                try await channel.deliver(reminder)
                let arrived = Set(server.messages()).subtracting(seen)
                #expect(arrived.count == 1, "\(server.log)")
                let file = try #require(arrived.first)
                seen.insert(file)
                bodies[sharing] = try await PythonMail.parse(file: file).body
            }
            #expect(bodies[true]?.contains("Write to Ada: " + ContactLinkPayloadTests.mailto + "\n") == true, "\(bodies[true] ?? "")")
            #expect(bodies[false]?.contains("ada@example.org") == false, "\(bodies[false] ?? "")")
            #expect(bodies[false]?.contains("mailto:") == false)
            #expect(bodies[false]?.contains("7946") == false)
        }

        @Test(.enabled(if: SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing)))
        func aServerThatIsNotThereIsRetried() async throws {
            let server = try await SMTPServer()
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let sendmail = try await server.writeMsmtpWrapper(into: directory)
            server.cleanUp()
            let channel = Self.channel(sendmail: sendmail, environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path])

            let error = await #expect(throws: DeliveryError.self) { try await channel.deliver(sampleReminder()) }
            let reason = "\(sendmail) exited with status 75: msmtp: cannot connect to 127.0.0.1, port \(server.port): Connection refused"
            #expect(error == .remoteUnavailable(channel: "mail", reason: reason))
        }

        @Test(
            .enabled(if: SMTPServer.canSendThroughMsmtp, Comment(rawValue: SMTPServer.msmtpMissing)),
            arguments: [("451 4.3.0 try again later", false), ("550 5.1.1 no such user", true)]
        )
        func theServersAnswerDecidesWhetherToRetry(reply: String, permanent: Bool) async throws {
            let (server, directory, channel) = try await Self.throughMsmtp(handler: .refuseRecipients(reply))
            defer { server.cleanUp() }
            defer { directory.cleanup() }

            let error = await #expect(throws: DeliveryError.self) {
                try await channel.deliver(sampleReminder(title: "Zoë's birthday", body: "Zoë turns 37 today"))
            }
            #expect(error?.isPermanent == permanent)
            let reason: String
            switch error {
            case .remoteUnavailable(let channel, let text), .remoteRefused(let channel, let text):
                #expect(channel == "mail")
                reason = text
            default:
                Issue.record("expected a remote error, got \(String(describing: error))")
                return
            }
            #expect(reason.hasSuffix("msmtp: server message: " + reply), "\(reason)")
            #expect(!reason.contains("Zoë"))
        }
    }
}
