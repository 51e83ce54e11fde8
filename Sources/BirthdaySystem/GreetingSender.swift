import BirthdayCore
import BirthdayText
import Foundation

/// The words of one greeting, as the friend reads them: a subject ("Happy
/// birthday!", in the greeting's language) and the text: the owner's
/// `--message` (``GreetingTemplate``), else the default, one warm sentence
/// with the first name ("Happy birthday, Ana, and have a wonderful day!").
///
/// Built from the greeting and the person's name and birthday only: no
/// note, no other date, no link to the owner's page or feed ever enters it.
/// Names are made harmless for chat services (``ChatText``).
package struct GreetingWords: Sendable, Equatable {
    package let subject: String
    package let body: String

    /// The words of `greeting` for `person` turning `age` (written only
    /// where the text asks for `{age}`; a text that asks for it without a
    /// known age gives the default text instead), in `localizer`'s language.
    package init(greeting: Greeting, person: Person, age: Int?, localizer: Localizer) {
        let first = GreetingTemplate.firstName(of: person)
        subject = localizer(Message.Key.greetingBirthdaySubject)
        body =
            greeting.message?.render(first: first, name: person.name, age: age)
            ?? localizer(Message.greeting(first: GreetingTemplate.harmless(first)))
    }
}

/// Sends a greeting: by e-mail through the owner's e-mail channel (its mail
/// program, its `--from`) with ``EmailChannel``, or through an Apprise URL
/// kept in a secret file (``ChannelSecrets``) with ``AppriseChannel``. The
/// same programs and the same rules as the channels: an argument list,
/// never a shell; the words on standard input; the URL only in its 0600
/// file, given with `-c`.
package enum GreetingSender {
    /// Where a greeting goes.
    package enum Route: Sendable {
        /// An e-mail To `to`, through the e-mail channel `channel`.
        case email(channel: RemoteChannel, to: EmailAddress)
        /// Through the Apprise URL in `configuration` (a greeting's secret file).
        case apprise(configuration: String)
    }

    /// Sends `words` by `route`, the e-mail dated `now` in `timeZone` (the friend's).
    ///
    /// - Throws: ``DeliveryError`` as the channel's delivery does (a refusal,
    ///   a service unavailable, no program).
    package static func send(
        _ words: GreetingWords,
        by route: Route,
        environment: [String: String],
        now: Date,
        timeZone: TimeZone,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(DeliveryError) {
        switch route {
        case .email(let channel, let to):
            let email = EmailChannel(
                name: channel.name,
                to: to,
                from: channel.from.flatMap(EmailAddress.init(parsing:)),
                sendmail: channel.sendmail,
                environment: environment,
                clock: clock,
                now: { now }
            )
            let message = EmailMessage.greeting(
                subject: words.subject,
                body: words.body,
                from: email.from,
                to: to,
                host: email.host,
                now: now,
                timeZone: timeZone
            )
            try await email.send(message)
        case .apprise(let configuration):
            try await AppriseChannel(name: "greeting", configuration: configuration, environment: environment, clock: clock)
                .send(title: words.subject, body: words.body)
        }
    }
}
