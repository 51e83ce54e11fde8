import BirthdayCore
import Testing

@testable import BirthdayNetwork

/// What one CardDAV request may cost (docs/sources.md, "Limits").
@Suite struct DAVLimitsTests {
    @Test func discoveryAnswersAreSmall() {
        #expect(DAVLimits.discovery() == DAVLimits(answerBytes: 4_000_000, deadline: .seconds(120)))
    }

    @Test(arguments: [(0, 64_000_000), (250, 64_000_000), (1_000, 256_000_000), (10_000, 2_560_000_000)])
    func aSyncMayReadInProportionToTheBook(cards: Int, bytes: Int) {
        #expect(DAVLimits.sync(knownCards: cards).answerBytes == bytes)
    }

    @Test(arguments: [
        ([:], Duration.seconds(120)),
        (["BIRTHDAYS_HTTP_DEADLINE": "3"], .seconds(3)),
        (["BIRTHDAYS_HTTP_DEADLINE": "0"], .seconds(120)),
        (["BIRTHDAYS_HTTP_DEADLINE": "-5"], .seconds(120)),
        (["BIRTHDAYS_HTTP_DEADLINE": "soon"], .seconds(120)),
    ])
    func theDeadlineComesFromTheEnvironment(environment: [String: String], deadline: Duration) {
        #expect(DAVLimits.deadline(environment: environment) == deadline)
    }

    @Test func passingALimitIsASentence() {
        let error = RemoteError.tooLarge(url: "http://127.0.0.1:1/dav/", megabytes: 4)
        #expect(
            error.description
                == "the server sent more than 4 MB for one request to http://127.0.0.1:1/dav/; birthdays stopped reading there (see Limits in docs/sources.md)"
        )
        #expect(DAVSession.duration(.seconds(120)) == "2 minutes")
        #expect(DAVSession.duration(.seconds(60)) == "1 minute")
        #expect(DAVSession.duration(.seconds(3)) == "3 s")
    }
}
