import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdaySystem

/// The ntfy and Gotify channel's parts that need no server: the URL rules,
/// the request it hands the helper, and how an answer becomes an error.
/// (PushChannelTests in BirthdaysCLITests sends through the real helper.)
@Suite struct PushChannelRequestTests {
    @Test func anNtfyURLKeepsItsTopicApartAndMasked() throws {
        let url = try PushURL("https://ntfy.sh/my_Topic-1", kind: .ntfy)
        #expect(url.server == "https://ntfy.sh/")
        #expect(url.topic == "my_Topic-1")
        #expect(url.masked == "https://ntfy.sh/…")
        let prefixed = try PushURL("http://127.0.0.1:8080/ntfy/topic/", kind: .ntfy)
        #expect(prefixed.server == "http://127.0.0.1:8080/ntfy/")
        #expect(prefixed.topic == "topic")
        let gotify = try PushURL("https://gotify.example/base", kind: .gotify)
        #expect(gotify.server == "https://gotify.example/base/")
        #expect(gotify.masked == gotify.server)
    }

    @Test(arguments: [
        "ntfy.sh/topic", "ftp://ntfy.sh/topic", "https:///topic", "https://ntfy.sh", "https://ntfy.sh/a.b", "https://u:p@ntfy.sh/t",
        "https://ntfy.sh/t?auth=x", "https://ntfy.sh/t#x", "https://ntfy.sh/" + String(repeating: "a", count: 65),
    ])
    func aBadNtfyURLIsRefusedWithoutRepeatingIt(_ text: String) {
        #expect(throws: PushURLProblem.self) { try PushURL(text, kind: .ntfy) }
    }

    @Test func theNtfyRequestIsJSONToTheRootWithABearerToken() throws {
        let url = try PushURL("https://ntfy.sh/topic", kind: .ntfy)
        let reminder = sampleReminder(title: "Zoë's birthday\r\nX-Evil: 1", body: "Zoë Ñúñez turns 37 today")
        let request = PushChannel.request(for: reminder, url: url, token: "tk_1")
        #expect(request.url == "https://ntfy.sh/")
        #expect(request.headers["Authorization"] == "Bearer tk_1")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.body.contains("Zoë Ñúñez"), "non-ASCII stays as it is: \(request.body)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
        #expect(body["topic"] as? String == "topic")
        #expect(body["title"] as? String == "Zoë's birthday X-Evil: 1")
        #expect(body["tags"] as? [String] == ["birthday"])
        #expect(body["priority"] as? Int == 3)
        #expect(PushChannel.request(for: reminder, url: url, token: nil).headers["Authorization"] == nil)
    }

    @Test func theGotifyRequestGoesToMessageWithItsKey() throws {
        let url = try PushURL("https://gotify.example", kind: .gotify)
        let request = PushChannel.request(for: sampleReminder(), url: url, token: "Akey")
        #expect(request.url == "https://gotify.example/message")
        #expect(request.headers["X-Gotify-Key"] == "Akey")
        #expect(request.headers["Authorization"] == nil)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
        #expect(body["priority"] as? Int == 5)
        #expect(body["message"] as? String == "Ada turns 37 today")
    }

    @Test func aLongMessageIsCutAtACharacterWithin4096Bytes() {
        let cut = PushChannel.cut(String(repeating: "ü", count: 3000), toBytes: 4096)
        #expect(cut.utf8.count <= 4096)
        #expect(cut.hasSuffix("…"))
        #expect(PushChannel.cut("short", toBytes: 4096) == "short")
    }

    @Test func answersBecomeDeliveredRetriedOrRefused() {
        func error(_ reply: PushReply) -> DeliveryError? {
            PushChannel.error(for: reply, channel: "phone", deadline: .seconds(10), masking: "sekrit")
        }
        #expect(error(PushReply(status: 200, body: "{}")) == nil)
        #expect(
            error(PushReply(status: 401, body: #"{"code":40101,"http":401,"error":"unauthorized"}"#))
                == .remoteRefused(channel: "phone", reason: "the server answered 401 40101: unauthorized")
        )
        #expect(
            error(PushReply(status: 401, body: #"{"error":"Unauthorized","errorCode":401,"errorDescription":"you need a token"}"#))
                == .remoteRefused(channel: "phone", reason: "the server answered 401 Unauthorized: you need a token")
        )
        #expect(error(PushReply(status: 429, retryAfter: "30"))?.description.contains("wait 30 s (Retry-After)") == true)
        #expect(error(PushReply(status: 429, retryAfter: "30"))?.retryAfter == .seconds(30))
        #expect(error(PushReply(status: 429, retryAfter: "soon"))?.retryAfter == nil, "an unreadable value is the usual back-off")
        #expect(error(PushReply(status: 503, body: "down"))?.retryAfter == nil)
        #expect(error(PushReply(status: 429))?.isPermanent == false)
        #expect(error(PushReply(status: 503, body: "down for sekrit"))?.isPermanent == false)
        #expect(error(PushReply(status: 503, body: "down for sekrit"))?.description.contains("sekrit") == false, "the topic is masked")
        #expect(error(PushReply(status: 302))?.isPermanent == true)
        #expect(error(PushReply(error: "connection refused"))?.isPermanent == false)
        #expect(error(PushReply(timedOut: true))?.description.contains("within 10 s") == true)
    }

    /// A long digest keeps whole lines from the first (a late note is there), and says some were left out.
    @Test func aLongDigestIsCutAtALine() {
        let lines = ["(sent late: it was due at 09:00)"] + (1...400).map { "Mon 30 Nov: Person \($0), birthday, turns \($0)" }
        let cut = PushChannel.cutLines(lines.joined(separator: "\n"), toBytes: 4096)
        #expect(cut.utf8.count <= 4096)
        #expect(cut.hasPrefix("(sent late: it was due at 09:00)\n"))
        #expect(cut.hasSuffix("\n…"))
        let kept = cut.split(separator: "\n").dropLast()
        #expect(kept.allSatisfy { lines.contains(String($0)) }, "only whole lines")
        #expect(PushChannel.cutLines("short\nlines", toBytes: 4096) == "short\nlines")
    }

    @Test func retryAfterIsSecondsOrAnHTTPDateWithinSixHours() {
        let now = Date(timeIntervalSince1970: 1_773_129_600)  // 2026-03-10T08:00:00Z
        #expect(PushChannel.retryAfter("120", now: now) == .seconds(120))
        #expect(PushChannel.retryAfter(" 0 ", now: now) == .seconds(1))
        #expect(PushChannel.retryAfter("Tue, 10 Mar 2026 08:05:00 GMT", now: now) == .seconds(300))
        #expect(PushChannel.retryAfter("Tue, 10 Mar 2026 07:00:00 GMT", now: now) == .seconds(1), "a date passed")
        #expect(PushChannel.retryAfter("999999", now: now) == .seconds(6 * 3600))
        #expect(PushChannel.retryAfter("-5", now: now) == nil)
        #expect(PushChannel.retryAfter("1.5", now: now) == nil)
    }

    @Test func theDeadlineCanBeSetForTests() {
        #expect(PushChannel.deadline(environment: [:]) == .seconds(10))
        #expect(PushChannel.deadline(environment: ["BIRTHDAYS_HTTP_DEADLINE": "2"]) == .seconds(2))
        #expect(PushChannel.deadline(environment: ["BIRTHDAYS_HTTP_DEADLINE": "0"]) == .seconds(10))
    }

    @Test func aMissingHelperRefusesSayingWhatToInstall() async {
        let channel = PushChannel(
            name: "tablet",
            service: .gotify(server: "https://gotify.example"),
            tokenCommand: nil,
            environment: [:],
            helper: "/nonexistent/birthdays-network"
        )
        await #expect(throws: DeliveryError.self) { try await channel.deliver(sampleReminder()) }
        do {
            try await channel.deliver(sampleReminder())
        } catch {
            #expect(error.isPermanent)
            #expect(error.description.contains("make install"))
        }
    }

    @Test func aFailingTokenCommandIsRetriedWithASentence() async {
        let channel = PushChannel(
            name: "tablet",
            service: .gotify(server: "https://gotify.example"),
            tokenCommand: "echo Akey-not-shown >&2; exit 3",
            environment: ["PATH": "/usr/bin:/bin"],
            helper: "/bin/true"
        )
        do {
            try await channel.deliver(sampleReminder())
            Issue.record("delivered without a token")
        } catch {
            #expect(error == .remoteUnavailable(channel: "tablet", reason: "the token command failed: it exited with status 3"))
        }
    }
}
