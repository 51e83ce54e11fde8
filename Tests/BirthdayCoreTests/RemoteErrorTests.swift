import BirthdayCore
import Foundation
import Testing

/// The one error of the network, a WebDAV server and the password command,
/// and the errors of a sync, a publish and a write-back that wrap it: the
/// sentences people read are the ones `SourceError` gave these cases.
@Suite struct RemoteErrorTests {
    static let sentences: [(RemoteError, String)] = [
        (.network(url: "https://dav.example/", reason: "connection refused"), "cannot reach https://dav.example/: connection refused"),
        (
            .unauthorized(url: "https://dav.example/"),
            "https://dav.example/ refused the username or password (HTTP 401); check --username and --password-command"
        ),
        (
            .http(url: "https://dav.example/", status: 500, reason: "Internal Server Error"),
            "https://dav.example/ answered HTTP 500 Internal Server Error"
        ),
        (.http(url: "https://dav.example/", status: 599, reason: ""), "https://dav.example/ answered HTTP 599"),
        (
            .badResponse(url: "https://dav.example/", reason: "no sync-token"),
            "https://dav.example/ sent an answer that cannot be used: no sync-token"
        ),
        (
            .tooLarge(url: "https://dav.example/", megabytes: 4),
            "the server sent more than 4 MB for one request to https://dav.example/; birthdays stopped reading there (see Limits in docs/sources.md)"
        ),
        (.passwordCommand(reason: "it exited with status 3"), "the password command failed: it exited with status 3"),
    ]

    @Test func eachCaseIsTheSameSentenceWhereverItIsWrapped() {
        for (error, sentence) in Self.sentences {
            #expect(error.description == sentence)
            #expect(SourceError.remote(error).description == sentence)
            #expect(PublishError.connection(error).description == sentence)
            #expect(WriteBackError.connection(error).description == sentence)
        }
    }

    /// What a server said is quoted once, not again by the error that wraps it.
    @Test func aServersControlCharactersAreShownOnceWrapped() {
        let error = RemoteError.http(url: "https://dav.example/", status: 500, reason: "Bad\u{1B}[2J")
        #expect(!error.description.contains("\u{1B}"))
        #expect(SourceError.remote(error).description == error.description)
        #expect(PublishError.connection(error).description == error.description)
    }

    /// What is not the network is a publish's and a write-back's own case, with the sentence it had.
    @Test func theHelperAndTheStoreAreTheirOwnCases() {
        #expect(PublishError.unavailable(reason: "publishing needs a database file").description == "publishing needs a database file")
        #expect(PublishError.store("database is locked").description == "database is locked")
        #expect(
            PublishError.invalidLocation(location: "ftp://x/", reason: "not an http(s) URL").description
                == "cannot follow ftp://x/: not an http(s) URL"
        )
        #expect(
            WriteBackError.unavailable(reason: "writing to a CardDAV card needs a database file").description
                == "writing to a CardDAV card needs a database file"
        )
        #expect(WriteBackError.store("database is locked").description == "database is locked")
        #expect(
            WriteBackError.invalidLocation(location: "ftp://x/", reason: "not an http(s) URL").description
                == "cannot follow ftp://x/: not an http(s) URL"
        )
    }

    /// The helper's report carries these errors as JSON; each comes back as it went.
    @Test func theWrappedErrorsRoundTripThroughJSON() throws {
        for (error, _) in Self.sentences {
            let source = SourceError.remote(error)
            #expect(try JSONDecoder().decode(SourceError.self, from: JSONEncoder().encode(source)) == source)
            let publish = PublishError.connection(error)
            #expect(try JSONDecoder().decode(PublishError.self, from: JSONEncoder().encode(publish)) == publish)
            let write = WriteBackError.connection(error)
            #expect(try JSONDecoder().decode(WriteBackError.self, from: JSONEncoder().encode(write)) == write)
        }
        let store = WriteBackError.store("database is locked")
        #expect(try JSONDecoder().decode(WriteBackError.self, from: JSONEncoder().encode(store)) == store)
    }
}
