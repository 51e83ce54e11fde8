import BirthdayCore
import BirthdayText
import Foundation
import GRDB

/// A link as `invite list` shows it.
package struct InvitationSummary: Sendable {
    package var invitation: Invitation
    /// How many of its answers wait for `invites accept` or `reject`.
    package var waiting: Int
}

/// What the form's address finds for a token (``AppDatabase/invitationForm(token:now:)``).
package enum InvitationLookup: Sendable {
    /// No link has the token.
    case unknown
    /// The link is used up or expired.
    case gone(Settings)
    /// The link takes answers: its note, and a fresh nonce for the form.
    case open(Invitation, nonce: String, Settings)
}

/// What a `POST` to the form's address came to (``AppDatabase/answerInvitation(token:entry:now:systemTimeZone:systemLocale:)``).
package struct InvitationReply: Sendable {
    package var outcome: InviteOutcome
    /// The owner's settings (the page's language); `nil` for an unknown token.
    package var settings: Settings?
    /// The link's note and a fresh nonce, when the form is shown again.
    package var note: String?
    package var nonce: String = ""
    /// The person already there whom the answer gave its date (a link with
    /// `--auto-accept` and one person of the answer's name, undated): their
    /// card may take it too (``InvitationDateGiven``). `nil` when the answer
    /// waits, added a new person (who has no card) or met the date already there.
    package var dateGiven: InvitationDateGiven?
}

/// A date an invitation's answer gave to a person already there, for the
/// write-back to their card once the answer's transaction is committed.
package struct InvitationDateGiven: Sendable, Equatable {
    package var personID: String
    package var date: EventDate

    package init(personID: String, date: EventDate) {
        self.personID = personID
        self.date = date
    }
}

/// What `invites accept` did.
package enum InvitationAcceptance: Sendable, Equatable {
    /// Added as a new person, or the date given to the person named; with the group joined, if any.
    case accepted(personID: String, isNew: Bool, group: String?, date: EventDate)
    /// No answer has that number.
    case unknown
    /// The answer was accepted or rejected before.
    case decided(InvitationAnswer.State)
    /// Taken as the person whose name it has (the only one, ``AppDatabase/invitationMatches()``),
    /// who has this birthday already: nothing but the group was written.
    case alreadyDated(personID: String, group: String?, birthday: EventDate)
    /// The person named is gone.
    case noPerson
    /// The person named has a birthday of their own (`birthday`) from where
    /// they came from: their card in a followed source (`followed`: its next
    /// sync would bring it back), or a file imported once (a vCard or CSV
    /// file: importing it again would). Nothing was changed.
    case cardHasBirthday(personID: String, birthday: EventDate, followed: Bool)
}

extension InvitationAcceptance {
    /// Whether the answer was taken (a person added or given the date, or found with it).
    package var isAccepted: Bool {
        switch self {
        case .accepted, .alreadyDated: true
        case .unknown, .decided, .noPerson, .cardHasBirthday: false
        }
    }
}

/// The invitations (`birthdays invite`, `birthdays invites`): links, their
/// answers, and what accepting one writes. Every answer is stored, counted
/// against its link and (with `--auto-accept`) taken in, with the owner's
/// message in the delivery ledger, in one transaction.
extension AppDatabase {
    /// Makes the link `invitation.name` with a new token; returns the link
    /// and its token (not stored: print it now), or `nil` when a link of
    /// that name exists.
    package func addInvitation(_ invitation: Invitation) async throws(StoreError) -> (invitation: Invitation, token: String)? {
        let token = FeedToken.generate()
        let stored = try await write { db in try InvitationRecord.insert(invitation, tokenHash: Invitation.tokenHash(token), db) }
        return stored.map { ($0, token) }
    }

    /// Every link with how many answers wait.
    package func invitations() async throws(StoreError) -> [InvitationSummary] {
        try await read { db in
            let waiting = try InvitationRecord.waitingCounts(db)
            return try InvitationRecord.all(db).map { InvitationSummary(invitation: $0, waiting: waiting[$0.id] ?? 0) }
        }
    }

    /// Removes the link `name`: it stops working at once; its answers stay. Whether there was one.
    package func removeInvitation(name: String) async throws(StoreError) -> Bool {
        try await write { db in try InvitationRecord.delete(name: name, db) }
    }

    /// The people each waiting answer may be, by the answer's number: the
    /// people whose name agrees with the answer's and who are undated or have
    /// its date (``PeopleByName``); an answer no one matches is left out.
    package func invitationMatches() async throws(StoreError) -> [Int64: [PersonMatch]] {
        try await read { db in
            let answers = try InviteAnswerRecord.answers(all: false, db)
            guard !answers.isEmpty else { return [:] }
            let people = try PeopleByName.read(db)
            var found: [Int64: [PersonMatch]] = [:]
            for answer in answers {
                let matches = people.matches(name: answer.name, birthday: answer.date)
                if !matches.isEmpty { found[answer.id] = matches }
            }
            return found
        }
    }

    /// The waiting answers, or every answer with `all`, oldest first.
    package func invitationAnswers(all: Bool) async throws(StoreError) -> [InvitationAnswer] {
        try await read { db in try InviteAnswerRecord.answers(all: all, db) }
    }

    /// Whether a link (open or closed) has `token`: `serve --all-users`
    /// asks each user's database whose form an address is, by the token's hash.
    package func hasInvitation(token: String) async throws(StoreError) -> Bool {
        let hash = Invitation.tokenHash(token)
        return try await read { db in try InvitationRecord.invitation(tokenHash: hash, db) != nil }
    }

    /// What `GET /invite/<token>` shows at `now`. The token is looked up by
    /// its hash: an unknown token and a closed link cost the same query.
    package func invitationForm(token: String, now: Date) async throws(StoreError) -> InvitationLookup {
        let hash = Invitation.tokenHash(token)
        return try await read { db -> InvitationLookup in
            let found = try InvitationRecord.invitation(tokenHash: hash, db)
            let settings = try SettingRecord.settings(db)
            let key = try Self.inviteKey(db)
            guard let found else { return .unknown }
            guard found.standing(at: now) == .open else { return .gone(settings) }
            return .open(found, nonce: InviteNonce.issue(invitationID: found.id, key: key, now: now), settings)
        }
    }

    /// Stores what `entry` sent through the link of `token`, if the link
    /// takes it, in one transaction: the link's standing and its use count,
    /// the nonce (used once), the answer, with `--auto-accept` the person
    /// and the reschedule, and the owner's message in the delivery ledger
    /// (``InvitationNotice``). Nothing is written unless the answer is stored.
    /// The reply's ``InvitationReply/dateGiven`` names the person already
    /// there who was given the date, whose card the caller may write after
    /// this transaction (never inside it).
    package func answerInvitation(
        token: String,
        entry: InviteForm.Entry,
        now: Date,
        systemTimeZone: TimeZone,
        systemLocale: String?
    ) async throws(StoreError) -> InvitationReply {
        let hash = Invitation.tokenHash(token)
        return try await write { db -> InvitationReply in
            let found = try InvitationRecord.invitation(tokenHash: hash, db)
            let settings = try SettingRecord.settings(db)
            let key = try Self.inviteKey(db)
            guard let invitation = found else { return InvitationReply(outcome: .unknown, settings: nil) }
            guard invitation.standing(at: now) == .open else { return InvitationReply(outcome: .gone, settings: settings) }
            func again(_ problem: InviteForm.Problem) -> InvitationReply {
                var typed = entry
                typed.nonce = ""
                return InvitationReply(
                    outcome: .form(typed, problem),
                    settings: settings,
                    note: invitation.note,
                    nonce: InviteNonce.issue(invitationID: invitation.id, key: key, now: now)
                )
            }
            guard InviteNonce.isValid(entry.nonce, invitationID: invitation.id, key: key, now: now) else { return again(.stale) }
            let zone = settings.resolvedTimeZone(system: systemTimeZone)
            let today = LocalDate.today(at: now, in: zone)
            let answer: InviteForm.Answer
            switch InviteForm.check(entry, today: today) {
            case .failure(let error): return again(error.problem)
            case .success(let checked): answer = checked
            }
            guard
                try InviteNonceRecord.use(
                    hash: InviteNonce.usedHash(entry.nonce),
                    expiresAt: now.addingTimeInterval(InviteNonce.lifetime + 60),
                    now: now,
                    db
                )
            else {
                // A valid nonce is recorded only with the answer it brought: this one's answer is stored (the form was sent twice).
                return InvitationReply(outcome: .repeated, settings: settings)
            }
            let id = try InviteAnswerRecord.insert(answer, invitation: invitation, arrivedAt: now, db)
            try InvitationRecord.countUse(id: invitation.id, db)
            var accepted = false
            var dateGiven: InvitationDateGiven?
            if invitation.autoAccept, let stored = try InviteAnswerRecord.answer(id: id, db) {
                let acceptance = try Self.accept(stored, personID: nil, asNew: false, now: now, db)
                if acceptance.isAccepted {
                    accepted = true
                    if case .accepted(let personID, isNew: false, _, let date) = acceptance {
                        dateGiven = InvitationDateGiven(personID: personID, date: date)
                    }
                    _ = try NotificationScheduler.reschedule(db, now: now, systemTimeZone: systemTimeZone, systemLocale: systemLocale)
                }
            }
            let notice = InvitationNotice.request(
                answerID: id,
                invitationID: invitation.id,
                invitation: invitation.name,
                accepted: accepted,
                now: now,
                today: today,
                in: settings.localizer(systemLocale: systemLocale)
            )
            if try !DeliveryRecord.insertIfAbsent(DeliveryEntry(queued: notice, at: now), db), !accepted {
                try Self.repointInvitationNotices(invitationID: invitation.id, systemLocale: systemLocale, db)
            }
            if let uses = invitation.usesAllowed, invitation.used + 1 >= uses {
                let usedUp = InvitationNotice.usedUp(
                    answerID: id,
                    invitationID: invitation.id,
                    invitation: invitation.name,
                    uses: uses,
                    now: now,
                    today: today,
                    in: settings.localizer(systemLocale: systemLocale)
                )
                _ = try DeliveryRecord.insertIfAbsent(DeliveryEntry(queued: usedUp, at: now), db)
            }
            return InvitationReply(outcome: .stored(id: id, accepted: accepted), settings: settings, dateGiven: dateGiven)
        }
    }

    /// Accepts answer `id`: with `personID`, the date given to that person;
    /// else the date given to the one person whose name it has
    /// (``invitationMatches()``), unless `asNew`; else a new person with its
    /// name and date. In the link's group, with the reschedule, in one transaction.
    package func acceptInvitationAnswer(
        id: Int64,
        personID: String?,
        asNew: Bool = false,
        now: Date,
        rescheduling scheduler: NotificationScheduler
    ) async throws(StoreError)
        -> InvitationAcceptance
    {
        try await write { db -> InvitationAcceptance in
            guard let answer = try InviteAnswerRecord.answer(id: id, db) else { return .unknown }
            guard answer.state == .waiting else { return .decided(answer.state) }
            let result = try Self.accept(answer, personID: personID, asNew: asNew, now: now, db)
            if result.isAccepted {
                _ = try scheduler.reschedule(db)
                if let link = answer.invitationID { try Self.repointInvitationNotices(invitationID: link, systemLocale: scheduler.systemLocale, db) }
            }
            return result
        }
    }

    /// Rejects answer `id`: nothing is added, and the answer keeps no name or
    /// year (``InviteAnswerRecord/forgetSender(id:_:)``). `nil` when there is no such
    /// answer, else the state it was in (`waiting` when it was rejected now).
    package func rejectInvitationAnswer(id: Int64, now: Date, systemLocale: String? = nil) async throws(StoreError) -> InvitationAnswer.State? {
        try await write { db -> InvitationAnswer.State? in
            guard let answer = try InviteAnswerRecord.answer(id: id, db) else { return nil }
            guard answer.state == .waiting else { return answer.state }
            _ = try InviteAnswerRecord.decide(id: id, state: .rejected, personID: nil, at: now, db)
            try InviteAnswerRecord.forgetSender(id: id, db)
            if let link = answer.invitationID { try Self.repointInvitationNotices(invitationID: link, systemLocale: systemLocale, db) }
            return .waiting
        }
    }

    /// Keeps the messages about link `invitationID`'s answers that are not
    /// delivered yet (``InvitationNotice``, one a day) pointing at an answer
    /// that waits: one that names an answer no longer waiting (accepted or
    /// rejected since, by hand) names the link's oldest waiting answer
    /// instead, and is dropped when none waits. A message about an answer
    /// taken at once (a link with `--auto-accept`) names no answer to accept and is kept.
    static func repointInvitationNotices(invitationID: Int64, systemLocale: String?, _ db: Database) throws {
        let notices = try DeliveryRecord.undelivered(notificationID: InvitationNotice.notificationID(invitationID: invitationID), db)
        guard !notices.isEmpty, let invitation = try InvitationRecord.invitation(id: invitationID, db), !invitation.autoAccept else { return }
        let waiting = try InviteAnswerRecord.answers(all: false, db).filter { $0.invitationID == invitationID }
        let settings = try SettingRecord.settings(db)
        for notice in notices {
            guard let named = DeliveryKind(storedValue: notice.deliveryKind)?.invitationAnswerID,
                let answer = try InviteAnswerRecord.answer(id: named, db), answer.state != .waiting
            else { continue }
            guard let next = waiting.first, let day = LocalDate(iso: notice.occurrenceDate) else {
                try DeliveryRecord.remove(notice, db)
                continue
            }
            let request = InvitationNotice.request(
                answerID: next.id,
                invitationID: invitationID,
                invitation: invitation.name,
                accepted: false,
                now: Date(timeIntervalSince1970: notice.fireAt),
                today: day,
                in: settings.localizer(systemLocale: systemLocale)
            )
            try DeliveryRecord.rewrite(notice, as: request, db)
        }
    }

    /// The writes of accepting `answer` (inside a write transaction); see
    /// ``acceptInvitationAnswer(id:personID:asNew:now:rescheduling:)``.
    static func accept(_ answer: InvitationAnswer, personID: String?, asNew: Bool, now: Date, _ db: Database) throws -> InvitationAcceptance {
        guard let date = answer.date else { return .unknown }
        let group = try answer.invitationID.flatMap { try InvitationRecord.invitation(id: $0, db) }?.group
        let id: String
        let isNew: Bool
        let matches =
            personID == nil && !asNew ? try PeopleByName.read(db).matches(name: answer.name, birthday: date) : []
        if matches.count == 1, let match = matches.first {
            // The one person whose name it has, undated or with this birthday: the answer is them.
            if let birthday = match.birthday {
                if let group { try PersonGroupRecord.add(personID: match.id, to: group, db) }
                _ = try InviteAnswerRecord.decide(id: answer.id, state: .accepted, personID: match.id, group: group, at: now, db)
                return .alreadyDated(personID: match.id, group: group, birthday: birthday)
            }
            guard try PersonRecord.setInvitedBirthday(id: match.id, date: date, now: now, db) else { return .noPerson }
            id = match.id
            isNew = false
        } else if let personID {
            if let own = try PersonRecord.cardBirthday(id: personID, db) {
                let followed = try !SourcePersonRecord.items(personId: personID, db).isEmpty
                return .cardHasBirthday(personID: personID, birthday: own, followed: followed)
            }
            guard try PersonRecord.setInvitedBirthday(id: personID, date: date, now: now, db) else { return .noPerson }
            id = personID
            isNew = false
        } else {
            id = "invited-\(answer.id)"
            isNew = true
            var person = Person(
                id: id,
                name: answer.name,
                source: ContactSource(file: "invitation " + answer.invitationName, index: Int(answer.id), line: 0),
                birthday: date
            )
            if let group { person.groups = [group] }
            let stamp = now.timeIntervalSince1970
            try PersonRecord.write(person, createdAt: stamp, updatedAt: stamp, imported: true, isNew: true, db)
        }
        // A card with another birthday, or a new one, that no relink follows now: the next import's or sync's relinks everyone.
        try LinkKeyRecord.forget(db)
        if let group { try PersonGroupRecord.add(personID: id, to: group, db) }
        _ = try InviteAnswerRecord.decide(id: answer.id, state: .accepted, personID: id, group: group, at: now, db)
        return .accepted(personID: id, isNew: isNew, group: group, date: date)
    }

    /// The key of the forms' nonces: the one the migration made (a database
    /// never migrated by this program gets a throwaway one: its forms then
    /// last one request).
    static func inviteKey(_ db: Database) throws -> [UInt8] {
        if let stored = try SettingRecord.value(.inviteKey, db), let key = HMAC.key(hex: stored) { return key }
        return Array(FeedToken.generate().utf8)
    }
}
