import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real SMTP server for the tests: aiosmtpd (apt `python3-aiosmtpd`) on an
/// ephemeral loopback port, with STARTTLS from a self-signed certificate
/// that openssl makes for it (aiosmtpd then refuses mail before TLS), and a
/// Maildir in a temporary folder. With ``Handler/mailbox`` every message
/// lands in `Maildir/new`; with ``Handler/refuseRecipients(_:)`` every
/// `RCPT TO` gets the reply given, such as `451 4.3.0 try later`.
///
/// ``writeMsmtpWrapper(into:)`` writes a sendmail program that sends here
/// through the real msmtp (apt `msmtp`).
public final class SMTPServer: @unchecked Sendable {
    public static let msmtp = "/usr/bin/msmtp"
    public static let isAvailable: Bool = SystemTools.pythonHas("aiosmtpd") && SystemTools.path("openssl") != nil
    public static let missing =
        "needs aiosmtpd and openssl (apt: python3-aiosmtpd, openssl), the SMTP server the e-mail tests send to"
    /// The server and msmtp, the sendmail program that sends to it.
    public static var canSendThroughMsmtp: Bool { isAvailable && FileManager.default.isExecutableFile(atPath: msmtp) }
    public static let msmtpMissing = missing + ", and msmtp (apt: msmtp) to send with"

    /// What the server does with a message.
    public enum Handler: Sendable {
        /// Keeps every message in the Maildir.
        case mailbox
        /// Answers every recipient with `reply` (`451 …` or `550 …`).
        case refuseRecipients(String)
    }

    public let directory: TemporaryDirectory
    public let port: Int
    private let process: TestProcess

    /// The Maildir the ``Handler/mailbox`` server delivers to.
    public var maildir: String { directory.file("Maildir") }

    /// Starts a server and waits until its port accepts connections.
    public init(handler: Handler = .mailbox) async throws {
        directory = try TemporaryDirectory()
        for folder in ["tmp", "new", "cur"] {
            try FileManager.default.createDirectory(atPath: directory.file("Maildir/" + folder), withIntermediateDirectories: true)
        }
        try directory.write(
            "refusing.py",
            """
            class Refuse:
                \"\"\"Answers every RCPT TO with the reply given on the command line.\"\"\"

                def __init__(self, reply):
                    self.reply = reply

                @classmethod
                def from_cli(cls, parser, *args):
                    return cls(" ".join(args))

                async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
                    return self.reply

            """
        )
        let certificate = try await TestProcess.run(
            [
                SystemTools.path("openssl") ?? "/usr/bin/openssl", "req", "-x509", "-nodes", "-newkey", "rsa:2048", "-subj", "/CN=localhost",
                "-days", "1", "-keyout", directory.file("k.pem"), "-out", directory.file("c.pem"),
            ],
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path]
        )
        guard certificate.status == 0 else { throw TestSupportError("openssl req failed: \(certificate.stderr)") }
        let handlerArguments: [String] =
            switch handler {
            case .mailbox: ["-c", "aiosmtpd.handlers.Mailbox", directory.file("Maildir")]
            case .refuseRecipients(let reply): ["-c", "refusing.Refuse", reply]
            }
        let environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path, "LANG": "C.UTF-8", "PYTHONPATH": directory.path]
        // The port is free when chosen; if another process takes it first, the server exits and another is tried.
        var attempt = 0
        while true {
            attempt += 1
            let port = try Loopback.freePort()
            let argv =
                [SystemTools.python, "-m", "aiosmtpd", "-n", "-l", "127.0.0.1:\(port)"]
                + ["--tlscert", directory.file("c.pem"), "--tlskey", directory.file("k.pem")] + handlerArguments
            let process = try TestProcess(argv, environment: environment, directory: directory.url, name: "aiosmtpd-\(attempt)")
            try await process.waitUntil("aiosmtpd to listen on \(port)", seconds: 60) { process in
                Self.accepts(port: port) || process.poll() != nil
            }
            if process.poll() == nil {
                self.port = port
                self.process = process
                return
            }
            guard attempt < 3 else { throw TestSupportError("aiosmtpd exited: \(process.stderr)") }
        }
    }

    deinit { stop() }

    /// Stops the server (the folder stays until ``cleanUp()``).
    public func stop() { process.stop() }

    /// Stops the server and removes its folder.
    public func cleanUp() {
        stop()
        directory.cleanup()
    }

    /// What the server printed so far.
    public var log: String { process.stderr + process.stdout }

    /// The messages in `Maildir/new`, oldest name first (paths).
    public func messages() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: maildir + "/new")) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { maildir + "/new/" + $0 }
    }

    /// Writes an msmtp configuration for this server (STARTTLS without a
    /// certificate check, no authentication, `from birthdays-test@example.org`
    /// as every real account has one) and a sendmail program,
    /// `sendmail`, that runs `msmtp -C CONFIG "$@"`, into `folder`; returns
    /// the program's path.
    public func writeMsmtpWrapper(into folder: TemporaryDirectory) async throws -> String {
        let configuration = try folder.write(
            "msmtprc",
            """
            account birthdays-test
            host 127.0.0.1
            port \(port)
            tls on
            tls_starttls on
            tls_certcheck off
            auth off
            syslog off
            from birthdays-test@example.org
            account default : birthdays-test

            """
        )
        // msmtp refuses a configuration that others may read.
        chmod(configuration, 0o600)
        return try await folder.writeProgram("sendmail", "#!/bin/sh\nexec \(Self.msmtp) -C '\(configuration)' \"$@\"\n")
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return connected == 0
    }
}

/// Python's own e-mail parser (`email.message_from_bytes` with
/// `email.policy.default`), as a second opinion on the messages the e-mail
/// channel writes: what it decodes, and every defect it finds.
public enum PythonMail {
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: SystemTools.python) }
    public static let missing = "needs /usr/bin/python3 (apt: python3), whose email package reads the messages back"

    /// A message as Python reads it.
    public struct Message: Decodable, Sendable {
        /// The message's own defects.
        public var defects: [String]
        public var headers: [Header]
        /// The body, decoded from its transfer encoding and charset.
        public var body: String
        public var from: Mailbox?
        public var to: Mailbox?

        /// The decoded values of the headers called `name` (any case).
        public func values(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }
    }

    /// One header: its name, its decoded value and its defects.
    public struct Header: Decodable, Sendable {
        public var name: String
        public var value: String
        public var defects: [String]
    }

    /// The first address of an address header, and how many it holds.
    public struct Mailbox: Decodable, Sendable {
        /// The display name as `email.headerregistry` reads it. Python 3.11
        /// keeps the space between two encoded words in a display name (RFC
        /// 2047 §6.2 says to drop it; Python's own long names do not come back
        /// intact either), so a name of several words has spaces added.
        public var name: String
        /// The display name as RFC 2047 §6.2 decodes it (the older
        /// `email.header.decode_header`): what a mail reader shows.
        public var phrase: String
        public var address: String
        public var count: Int
    }

    private static let script = """
        import email, email.header, email.policy, json, sys
        with open(sys.argv[1], "rb") as f:
            data = f.read()
        msg = email.message_from_bytes(data, policy=email.policy.default)
        raw = email.message_from_bytes(data, policy=email.policy.compat32)
        def mailbox(name):
            value = msg[name]
            if value is None or not getattr(value, "addresses", None):
                return None
            first = value.addresses[0]
            phrase = raw[name].rsplit("<", 1)[0].strip() if "<" in raw[name] else ""
            decoded = str(email.header.make_header(email.header.decode_header(phrase)))
            return {"name": first.display_name, "phrase": decoded, "address": first.addr_spec, "count": len(value.addresses)}
        print(json.dumps({
            "defects": [repr(d) for d in msg.defects],
            "headers": [{"name": k, "value": str(v), "defects": [repr(d) for d in getattr(v, "defects", ())]} for k, v in msg.items()],
            "body": msg.get_content().replace("\\r\\n", "\\n"),
            "from": mailbox("From"),
            "to": mailbox("To"),
        }))
        """

    /// Parses the message in the file at `path`.
    public static func parse(file path: String) async throws -> Message {
        let result = try await TestProcess.run([SystemTools.python, "-c", script, path], environment: ["LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"])
        guard result.status == 0 else { throw TestSupportError("python3 could not read \(path): \(result.stderr)") }
        return try JSONDecoder().decode(Message.self, from: Data(result.stdout.utf8))
    }

    /// Parses `bytes` (written to a temporary file first).
    public static func parse(_ bytes: [UInt8]) async throws -> Message {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        return try await parse(file: try directory.write("message.eml", bytes: bytes))
    }
}
