import BirthdayCore
import Foundation

/// Writes the birthday calendar into a CalDAV calendar
/// ([RFC 4791](https://www.rfc-editor.org/rfc/rfc4791)), one resource per
/// event UID, incrementally (issue 21; `birthdays publish`).
///
/// ## Finding the calendar (``discover(_:username:password:calendarName:)``)
/// A URL whose resource type is a calendar is used as it is. Otherwise
/// `PROPFIND` of `current-user-principal` and `calendar-home-set` (on the
/// URL, then on `/.well-known/caldav`) leads to the home set; its calendar
/// whose display name is `calendarName` is used, else a new one is made with
/// `MKCALENDAR` (that display name, events only, a birthday colour: Apple's
/// `calendar-color`, which most clients show; a server that refuses the
/// colour gets the request again without it).
///
/// ## Publishing (``publish(to:password:events:published:productID:force:record:forget:)``)
/// 1. The listing: a `sync-collection` REPORT (RFC 6578) from the target's
///    sync-token asks only for what changed since the last publish (an
///    unchanged calendar answers with an empty list), laid over what we
///    recorded (``PublishPlan/listing(published:changed:removed:)``); without
///    a token, or one the server no longer takes, it lists every member, and
///    its token is kept for the next publish. A server that refuses
///    `sync-collection` (400, 403, 405, 415, 422, 501) is remembered
///    (``PublishTarget/syncRefused``) and listed with `PROPFIND` Depth 1 of
///    the members' entity tags. Only a server that says it cannot list (405,
///    501, a 207 without tags) is published to from the records alone; any
///    other answer is an error.
/// 2. The ``PublishPlan``: `PUT` with `If-None-Match: *` for new events and
///    for ours the listing shows gone (one request each), `If-Match` for
///    changed ones, a `GET` first where the listing shows something we do
///    not know as ours (not recorded, or another tag), `DELETE` with
///    `If-Match` for ours no longer wanted (a 404 is fine), and no request
///    for ours no longer wanted and already gone. Deleting more than half
///    of 10 or more published events needs `force`. Up to `inFlight` PUTs
///    are in flight at once; a 429 or 503 is waited for (`Retry-After`) and
///    asked again, and leaves one request at a time for the rest of the publish.
/// 3. A 412 is normal: the resource is fetched; when it is ours (recorded,
///    or ``PublishPlan/writtenByUs(_:uid:productID:)``: our `PRODID` and
///    UID) and its dates, title and alarms are ours
///    (``PublishPlan/sameEvent(_:_:)``) its tag is adopted, when ours but
///    different ours is put again with `If-Match` of its tag, and when not
///    ours it is left alone (``PublishReport/foreign``). An event refused
///    three times is skipped (``PublishReport/skipped``, by resource name)
///    and the others are still written; the publish then fails with
///    ``PublishError/skipped(resources:)``.
/// Each success is recorded at once through `record`/`forget`. Resources
/// that are not ours are never changed or deleted.
package struct CalDAVPublisher: Sendable {
    private let userAgent: String
    private let deadline: Duration
    private let inFlight: Int

    /// - Parameter inFlight: the most PUTs a publish has in flight at once
    ///   (over as many connections); one at a time once the server answers 429 or 503.
    package init(userAgent: String = "birthdays", deadline: Duration = DAVLimits.defaultDeadline, inFlight: Int = CalDAVPublisher.defaultInFlight) {
        self.userAgent = userAgent
        self.deadline = deadline
        self.inFlight = max(1, inFlight)
    }

    /// PUTs in flight at once unless told otherwise.
    package static let defaultInFlight = 4

    // MARK: - Discovery

    /// The calendar to publish into, found or made from `location`.
    ///
    /// - Throws: ``PublishError/notACalendar(url:)``; ``PublishError/connection(_:)``: unauthorized, network, HTTP and XML errors.
    package func discover(
        _ location: String,
        username: String?,
        password: String?,
        calendarName: String
    ) async throws(PublishError) -> PublishDiscovery {
        guard let url = URL(string: location), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw .invalidLocation(location: location, reason: "not an http(s) URL")
        }
        let session = DAVSession(username: username, password: password, userAgent: userAgent, limits: .discovery(deadline: deadline))
        let result: Result<PublishDiscovery, PublishError>
        do throws(PublishError) {
            result = .success(try await discover(url, calendarName: calendarName, session: session))
        } catch {
            result = .failure(error)
        }
        await session.shutdown()
        return try result.get()
    }

    private enum Found {
        case calendar(URL)
        case home(URL)
    }

    private func discover(_ url: URL, calendarName: String, session: DAVSession) async throws(PublishError) -> PublishDiscovery {
        var found = try await Self.dav { () throws(RemoteError) in try await follow(url, session: session) }
        if found == nil, let wellKnown = URL(string: "/.well-known/caldav", relativeTo: url)?.absoluteURL, wellKnown.path != url.path {
            found = try await Self.dav { () throws(RemoteError) in try await follow(wellKnown, session: session) }
        }
        switch found {
        case .calendar(let calendar):
            return PublishDiscovery(calendarURL: WebDAV.collection(calendar), created: false)
        case .home(let home):
            return try await Self.dav { () throws(RemoteError) in try await calendar(named: calendarName, in: home, session: session) }
        case nil:
            throw .notACalendar(url: DAVSession.display(url))
        }
    }

    private func follow(_ url: URL, session: DAVSession) async throws(RemoteError) -> Found? {
        guard let (response, answered) = try await describe(url, session: session) else { return nil }
        if response.properties[.resourceType]?.children.contains(.calendar) == true { return .calendar(answered) }
        if let home = response.properties[.calendarHomeSet]?.hrefs.first.flatMap({ URL(string: $0, relativeTo: answered)?.absoluteURL }) {
            return .home(home)
        }
        if let principal = response.properties[.currentUserPrincipal]?.hrefs.first.flatMap({ URL(string: $0, relativeTo: answered)?.absoluteURL }),
            principal.path != answered.path
        {
            guard let (described, from) = try await describe(principal, session: session) else { return nil }
            if let home = described.properties[.calendarHomeSet]?.hrefs.first.flatMap({ URL(string: $0, relativeTo: from)?.absoluteURL }) {
                return .home(home)
            }
        }
        return nil
    }

    private func describe(_ url: URL, session: DAVSession) async throws(RemoteError) -> (DAVResponse, URL)? {
        let reply = try await session.send("PROPFIND", url, depth: "0", body: CalDAVRequests.describe)
        switch reply.status {
        case 207:
            let answer = try WebDAV.multistatus(reply, url)
            return answer.responses.first.map { ($0, reply.url) }
        case 401:
            throw .unauthorized(url: DAVSession.display(url))
        case 403:
            throw .http(url: DAVSession.display(url), status: 403, reason: HTTPStatusText.phrase(403))
        case 400, 404, 405, 409, 412, 415, 501:
            return nil
        default:
            throw WebDAV.failure(reply, url)
        }
    }

    /// The calendar of `home` named `name`, else a new one (MKCALENDAR).
    private func calendar(named name: String, in home: URL, session: DAVSession) async throws(RemoteError) -> PublishDiscovery {
        let reply = try await session.send("PROPFIND", home, depth: "1", body: CalDAVRequests.listCollections)
        guard reply.status == 207 else { throw WebDAV.failure(reply, home) }
        for response in try WebDAV.multistatus(reply, home).responses {
            guard response.properties[.resourceType]?.children.contains(.calendar) == true,
                response.text(.displayName) == name,
                let url = URL(string: response.href, relativeTo: reply.url)?.absoluteURL
            else { continue }
            return PublishDiscovery(calendarURL: WebDAV.collection(url), created: false)
        }
        let base = WebDAV.collection(reply.url)
        let slug = Self.slug(name)
        for attempt in 1...9 {
            guard let url = URL(string: base + slug + (attempt == 1 ? "" : "-\(attempt)") + "/") else { break }
            var made = try await session.send("MKCALENDAR", url, depth: nil, body: CalDAVRequests.makeCalendar(displayName: name, color: Self.color))
            if [400, 403, 422].contains(made.status) {
                // A server that refuses to set the colour (MKCALENDAR sets all its properties or none): once more without it.
                made = try await session.send("MKCALENDAR", url, depth: nil, body: CalDAVRequests.makeCalendar(displayName: name, color: nil))
            }
            switch made.status {
            case 201: return PublishDiscovery(calendarURL: WebDAV.collection(url), created: true)
            case 405, 409: continue  // the name is taken
            default: throw WebDAV.failure(made, url)
            }
        }
        throw .http(url: DAVSession.display(home), status: 405, reason: "no free name for a new calendar")
    }

    /// The colour of a calendar publish makes (Apple's `calendar-color`, `#RRGGBBAA`, which
    /// iOS, macOS, DAVx5, Nextcloud and Thunderbird show): a birthday pink.
    static let color = "#E0467CFF"

    /// A path segment for a calendar named `name`: its ASCII letters and digits, lowercased.
    static func slug(_ name: String) -> String {
        let kept = String(
            name.lowercased().unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }.map(Character.init)
        )
        return kept.isEmpty ? "birthdays" : String(kept.prefix(40))
    }

    // MARK: - Publishing

    /// Publishes `events` to `target`'s calendar.
    ///
    /// - Parameters:
    ///   - published: what we wrote before, by UID.
    ///   - productID: the `PRODID` of our events (``PublishPlan/writtenByUs(_:uid:productID:)``).
    ///   - record: stores a resource written or adopted, at once.
    ///   - forget: forgets a resource deleted or gone, at once.
    /// - Returns: the report; its error says why it stopped (what was done before is recorded).
    package func publish(
        to target: PublishTarget,
        password: String?,
        events: [PublishEvent],
        published: [String: PublishedEvent],
        productID: String,
        force: Bool,
        record: @escaping @Sendable (PublishedEvent) async throws(PublishError) -> Void,
        forget: @escaping @Sendable (String) async throws(PublishError) -> Void
    ) async -> PublishReport {
        await publish(
            to: target,
            password: password,
            building: { events },
            published: published,
            productID: productID,
            force: force,
            record: record,
            forget: forget
        )
    }

    /// Publishes the events `building` makes to `target`'s calendar; they
    /// are built while the listing's request is on its way (the two do not
    /// depend on each other).
    ///
    /// - Parameters:
    ///   - building: makes the events; its error ends the publish before anything is written.
    ///   - published: what we wrote before, by UID.
    ///   - productID: the `PRODID` of our events (``PublishPlan/writtenByUs(_:uid:productID:)``).
    ///   - record: stores a resource written or adopted, at once.
    ///   - forget: forgets a resource deleted or gone, at once.
    /// - Returns: the report; its error says why it stopped (what was done before is recorded).
    package func publish(
        to target: PublishTarget,
        password: String?,
        building: @escaping @Sendable () async throws(PublishError) -> [PublishEvent],
        published: [String: PublishedEvent],
        productID: String,
        force: Bool,
        record: @escaping @Sendable (PublishedEvent) async throws(PublishError) -> Void,
        forget: @escaping @Sendable (String) async throws(PublishError) -> Void
    ) async -> PublishReport {
        var report = PublishReport(name: target.name)
        guard let calendar = URL(string: target.calendarURL), calendar.scheme == "http" || calendar.scheme == "https" else {
            report.error = .invalidLocation(location: target.calendarURL, reason: "not an http(s) URL")
            return report
        }
        let session = DAVSession(
            username: target.username,
            password: password,
            userAgent: userAgent,
            limits: .sync(knownCards: max(target.events, published.count), deadline: deadline),
            followsRedirects: false
        )
        do throws(PublishError) {
            try await run(
                calendar,
                target: target,
                building: building,
                published: published,
                productID: productID,
                force: force,
                session: session,
                report: &report,
                record: record,
                forget: forget
            )
        } catch {
            report.error = error
        }
        report.requests = session.requests
        await session.shutdown()
        return report
    }

    private func run(
        _ calendar: URL,
        target: PublishTarget,
        building: @escaping @Sendable () async throws(PublishError) -> [PublishEvent],
        published: [String: PublishedEvent],
        productID: String,
        force: Bool,
        session: DAVSession,
        report: inout PublishReport,
        record: @Sendable (PublishedEvent) async throws(PublishError) -> Void,
        forget: @Sendable (String) async throws(PublishError) -> Void
    ) async throws(PublishError) {
        async let built = Self.result(building)
        let listing = try await Self.dav { () throws(RemoteError) in
            try await self.listing(calendar, target: target, published: published, session: session, report: &report)
        }
        let events = try await built.get()
        var wanted: [String: String] = [:]
        var bytes: [String: PublishEvent] = [:]
        for event in events {
            wanted[event.uid] = event.hash
            bytes[event.uid] = event
        }
        let plan = PublishPlan(wanted: wanted, published: published, calendarPath: calendar.path(percentEncoded: true), listing: listing)
        if !force && PublishPlan.needsForce(deleting: plan.deletes.count, of: published.count) {
            throw .massRemoval(target: target.name, deleting: plan.deletes.count, of: published.count)
        }
        report.unchanged = plan.unchanged
        // What is ours after each step, by decoded path (for the sync-token kept at the end).
        var ours = Ours(published)
        // The listing's token no longer tells what changed once we write: kept only when the changes since are ours.
        let listedToken = report.syncToken
        if !plan.puts.isEmpty || !plan.deletes.isEmpty { report.syncToken = nil }
        for uid in plan.forgets {
            try await forget(uid)
            ours.release(published[uid]?.href)
        }
        // A few PUTs in flight at once (`inFlight`; one at a time once the server
        // said it is busy), each answer handled and recorded as it arrives.
        var failure: PublishError?
        await withTaskGroup(of: Written.self) { group in
            var next = plan.puts.startIndex
            var running = 0
            while true {
                while failure == nil, next < plan.puts.endIndex, running < (session.crowded ? 1 : max(1, inFlight)) {
                    let put = plan.puts[next]
                    next += 1
                    guard let event = bytes[put.uid], let url = URL(string: put.href, relativeTo: calendar)?.absoluteURL else { continue }
                    // What we wrote (or were about to create) before this publish is ours whatever another client made of it.
                    let recorded = published[put.uid] != nil
                    if !recorded {
                        do throws(PublishError) {
                            try await record(PublishedEvent(uid: put.uid, href: put.href, etag: nil, hash: PublishedEvent.pending))
                        } catch {
                            failure = error
                            break
                        }
                        ours.expect(put.href, nil)
                    }
                    group.addTask {
                        do throws(RemoteError) {
                            let outcome = try await write(
                                event,
                                to: url,
                                condition: put.condition,
                                recorded: recorded,
                                productID: productID,
                                session: session
                            )
                            return Written(put: put, event: event, recorded: recorded, outcome: .success(outcome))
                        } catch {
                            return Written(put: put, event: event, recorded: recorded, outcome: .failure(error))
                        }
                    }
                    running += 1
                }
                guard let written = await group.next() else { break }
                running -= 1
                do throws(PublishError) {
                    try await settle(written, ours: &ours, report: &report, record: record, forget: forget)
                } catch {
                    // The first failure stops the publish; the writes still in flight are recorded as they end.
                    if failure == nil { failure = error }
                }
            }
        }
        if let failure { throw failure }
        for delete in plan.deletes {
            guard let url = URL(string: delete.href, relativeTo: calendar)?.absoluteURL else { continue }
            let removal = try await Self.dav { () throws(RemoteError) in
                try await remove(url, uid: delete.uid, etag: delete.etag, productID: productID, session: session)
            }
            switch removal {
            case .deleted:
                try await forget(delete.uid)
                ours.release(delete.href)
                report.deleted += 1
            case .notOurs:
                try await forget(delete.uid)
                ours.release(delete.href)
            case .refused:
                report.skipped.append(PublishPlan.resourceName(href: delete.href))
            }
        }
        if let listedToken, report.syncToken == nil {
            report.syncToken = await settledToken(calendar, since: listedToken, ours: ours, session: session)
        }
        if !report.skipped.isEmpty {
            throw .skipped(resources: report.skipped)
        }
    }

    /// What is ours in the calendar as a publish goes: the tag we know of each
    /// resource recorded, by decoded path, and the paths it wrote.
    private struct Ours {
        var expected: [String: String?] = [:]
        var wrote: Set<String> = []

        init(_ published: [String: PublishedEvent]) {
            for event in published.values {
                expected.updateValue(event.hash == PublishedEvent.pending ? nil : event.etag, forKey: PublishPlan.decodedPath(event.href))
            }
        }

        mutating func expect(_ href: String, _ etag: String?) {
            expected.updateValue(etag, forKey: PublishPlan.decodedPath(href))
        }

        mutating func release(_ href: String?) {
            guard let href else { return }
            expected.removeValue(forKey: PublishPlan.decodedPath(href))
        }
    }

    /// One PUT's event and what became of it.
    private struct Written: Sendable {
        var put: PublishPlan.Put
        var event: PublishEvent
        var recorded: Bool
        var outcome: Result<WriteOutcome, RemoteError>
    }

    /// Records what one PUT did, and counts it in the report.
    private func settle(
        _ written: Written,
        ours: inout Ours,
        report: inout PublishReport,
        record: @Sendable (PublishedEvent) async throws(PublishError) -> Void,
        forget: @Sendable (String) async throws(PublishError) -> Void
    ) async throws(PublishError) {
        let put = written.put
        let outcome: WriteOutcome
        switch written.outcome {
        case .success(let done): outcome = done
        case .failure(let error): throw .connection(error)
        }
        switch outcome {
        case .wrote(let etag), .adopted(let etag):
            try await record(PublishedEvent(uid: put.uid, href: put.href, etag: etag, hash: written.event.hash))
            ours.expect(put.href, etag)
            if case .wrote = outcome {
                report.put += 1
                ours.wrote.insert(PublishPlan.decodedPath(put.href))
            } else {
                report.unchanged += 1
            }
        case .notOurs:
            // Someone else's resource at our address: left alone, and not ours.
            try await forget(put.uid)
            ours.release(put.href)
            report.foreign.append(put.href)
        case .refused:
            // Refused again and again: the others are still written. A create we never saw
            // made is forgotten; an update keeps the record it had, so the next publish tries again.
            if !written.recorded {
                try await forget(put.uid)
                ours.release(put.href)
            }
            report.skipped.append(PublishPlan.resourceName(href: put.href))
        }
    }

    /// The sync-token to keep after a publish that wrote: one more
    /// `sync-collection` from the listing's token; its new token when every
    /// change it shows is ours (``PublishPlan/changesAreOurs(changed:removed:expected:wrote:)``),
    /// else `nil` (the next publish lists every member). A failure here costs
    /// only that: the publish itself is done.
    private func settledToken(_ calendar: URL, since token: String, ours: Ours, session: DAVSession) async -> String? {
        guard let delta = try? await changes(calendar, since: token, session: session),
            PublishPlan.changesAreOurs(changed: delta.changed, removed: delta.removed, expected: ours.expected, wrote: ours.wrote)
        else { return nil }
        return delta.token
    }

    /// What `body` returns or throws.
    private static func result<T: Sendable>(_ body: @Sendable () async throws(PublishError) -> T) async -> Result<T, PublishError> {
        do throws(PublishError) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// Runs `body`, whose failures are the WebDAV layer's, as a publish's.
    private static func dav<T>(_ body: () async throws(RemoteError) -> T) async throws(PublishError) -> T {
        do throws(RemoteError) {
            return try await body()
        } catch {
            throw .connection(error)
        }
    }

    /// The listing the plan starts from: with `sync-collection` (RFC 6578)
    /// what changed since the target's token over what we recorded
    /// (``PublishPlan/listing(published:changed:removed:)``), or every member
    /// when there is no token (or the server no longer takes it); where the
    /// server refuses `sync-collection`, ``memberTags(_:session:)``. The
    /// report gets the token to keep, or that the server refuses it.
    private func listing(
        _ calendar: URL,
        target: PublishTarget,
        published: [String: PublishedEvent],
        session: DAVSession,
        report: inout PublishReport
    ) async throws(RemoteError) -> [String: String]? {
        if !target.syncRefused {
            if let token = target.syncToken, let delta = try await changes(calendar, since: token, session: session) {
                report.syncCollection = true
                report.syncToken = delta.token
                return PublishPlan.listing(published: published, changed: delta.changed, removed: delta.removed)
            }
            if let all = try await changes(calendar, since: nil, session: session) {
                report.syncCollection = true
                // A server that lists members without their tags does not list: the records alone decide.
                guard all.changed.isEmpty || all.changed.values.contains(where: { !$0.isEmpty }) else { return nil }
                report.syncToken = all.token
                return all.changed
            }
            // Refused: remembered once the listing it falls back to is answered.
            let tags = try await memberTags(calendar, session: session)
            report.syncCollection = false
            return tags
        }
        return try await memberTags(calendar, session: session)
    }

    /// What a `sync-collection` REPORT says changed since a token.
    private struct Delta {
        /// Entity tags by decoded path ("" for a member listed without one).
        var changed: [String: String] = [:]
        /// Decoded paths reported gone (404).
        var removed: Set<String> = []
        /// The token to ask from next time.
        var token = ""
    }

    /// The members changed since `token` (every member for `nil`), by decoded
    /// path; `nil` when the server refuses `sync-collection` (400, 403, 405,
    /// 415, 422 or 501, or a multistatus without a sync-token) or no longer
    /// takes `token` (409, or 412 with `valid-sync-token`): asked with a token,
    /// the caller then asks once more without one, and that answer decides. A
    /// truncated answer (507 for the calendar itself) goes on from its token,
    /// at most 100 requests.
    private func changes(_ calendar: URL, since token: String?, session: DAVSession) async throws(RemoteError) -> Delta? {
        var delta = Delta()
        var token = token
        for _ in 0..<100 {
            let reply = try await session.send("REPORT", calendar, depth: "0", body: CalDAVRequests.syncCollection(token: token))
            if reply.status != 207 {
                let invalidToken = WebDAVXML.errorConditions(reply.body).contains(.dav("valid-sync-token"))
                if token != nil, reply.status == 409 || (reply.status == 412 && invalidToken) { return nil }
                if [400, 403, 405, 415, 422, 501].contains(reply.status) { return nil }
                throw WebDAV.failure(reply, calendar)
            }
            let answer = try WebDAV.multistatus(reply, calendar)
            var truncated = false
            for response in answer.responses {
                guard let member = WebDAV.member(response.href, of: reply.url) else {
                    if response.status == 507 { truncated = true }
                    continue
                }
                let path = PublishPlan.decodedPath(member)
                if response.status == 404 {
                    delta.changed[path] = nil
                    delta.removed.insert(path)
                } else {
                    delta.removed.remove(path)
                    delta.changed[path] = response.text(.getETag) ?? ""
                }
            }
            // A multistatus without a token is no sync-collection answer: the server does not do it.
            guard let next = answer.syncToken, !next.isEmpty else { return nil }
            token = next
            delta.token = next
            if !truncated { return delta }
        }
        throw .badResponse(url: DAVSession.display(calendar), reason: "the sync-collection answer was still truncated after 100 requests")
    }

    /// The entity tag of every member of the calendar, by decoded path (the
    /// `PROPFIND` Depth 1 of `getetag`); `nil` only when the server says it
    /// does not list them: 405 or 501, or a 207 whose members carry no tag.
    /// Any other answer (an error, a redirect, a body that is not a
    /// multistatus) is an error: taking it for "cannot list" would make a
    /// broken server look like a publish with nothing to do.
    private func memberTags(_ calendar: URL, session: DAVSession) async throws(RemoteError) -> [String: String]? {
        let reply = try await session.send("PROPFIND", calendar, depth: "1", body: CalDAVRequests.memberETags)
        switch reply.status {
        case 207: break
        case 405, 501: return nil
        default: throw WebDAV.failure(reply, calendar)
        }
        var tags: [String: String] = [:]
        var members = 0
        for response in try WebDAV.multistatus(reply, calendar).responses {
            guard let path = WebDAV.member(response.href, of: reply.url) else { continue }
            members += 1
            if let tag = response.text(.getETag) { tags[PublishPlan.decodedPath(path)] = tag }
        }
        return members > 0 && tags.isEmpty ? nil : tags
    }

    /// What became of one event's PUT.
    private enum WriteOutcome {
        /// Written; the resource's new tag.
        case wrote(String?)
        /// Ours already, as we want it: its tag kept, nothing written.
        case adopted(String?)
        /// A resource birthdays did not write sits there: left alone.
        case notOurs
        /// The server answered 412 again and again.
        case refused
    }

    /// PUTs `event` at `url` as `condition` says, with the 412 rule: a
    /// resource found there is fetched; when it is ours (`recorded`, or
    /// ``PublishPlan/writtenByUs(_:uid:productID:)``) and the same event
    /// (``PublishPlan/sameEvent(_:_:)``) its tag is kept, when ours but
    /// different it is written with `If-Match` of its tag, and when not ours
    /// it is never written.
    private func write(
        _ event: PublishEvent,
        to url: URL,
        condition start: PublishPlan.Condition,
        recorded: Bool,
        productID: String,
        session: DAVSession
    ) async throws(RemoteError) -> WriteOutcome {
        var condition = start
        var sent = 0
        // Three PUTs at most: a fetch that finds the resource gone or without our tag leads to the next.
        while sent < 3 {
            let header: (String, String)
            switch condition {
            case .check:
                let current = try await get(url, session: session)
                switch current.status {
                case 404, 410:
                    condition = .create
                    continue
                case 200:
                    guard let tag = current.etag else {
                        throw .badResponse(url: DAVSession.display(url), reason: "the server sent no ETag for it")
                    }
                    let text = String(decoding: current.body, as: UTF8.self)
                    guard recorded || PublishPlan.writtenByUs(text, uid: event.uid, productID: productID) else { return .notOurs }
                    if PublishPlan.sameEvent(event.bytes, text) { return .adopted(tag) }
                    header = ("If-Match", tag)
                default:
                    throw WebDAV.failure(current, url)
                }
            case .create:
                header = ("If-None-Match", "*")
            case .update(let etag):
                guard let etag else {
                    condition = .check
                    continue
                }
                header = ("If-Match", etag)
            }
            sent += 1
            var reply = try await session.send(
                "PUT",
                url,
                depth: nil,
                headers: [header],
                body: event.bytes,
                contentType: "text/calendar; charset=utf-8"
            )
            // A busy server (429, 503) gets the same PUT again after the wait it asks for, at most five times.
            var waits = 0
            while reply.status == 429 || reply.status == 503, waits < 5 {
                waits += 1
                try? await Task.sleep(for: Self.wait(reply.retryAfter, attempt: waits))
                reply = try await session.send(
                    "PUT",
                    url,
                    depth: nil,
                    headers: [header],
                    body: event.bytes,
                    contentType: "text/calendar; charset=utf-8"
                )
            }
            switch reply.status {
            case 200..<300:
                if let tag = reply.etag { return .wrote(tag) }
                let current = try await get(url, session: session)
                return .wrote(current.status == 200 ? current.etag : nil)
            case 404 where header.0 == "If-Match", 410 where header.0 == "If-Match":
                // Updating what someone else deleted: made again.
                condition = .create
            case 412:
                condition = .check
            default:
                throw WebDAV.failure(reply, url)
            }
        }
        return .refused
    }

    /// How long to wait before asking a busy server again: its `Retry-After`
    /// in seconds (at most 30), else 1, 2, 4 … seconds.
    static func wait(_ retryAfter: String?, attempt: Int) -> Duration {
        if let seconds = retryAfter.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), seconds >= 0 {
            return .seconds(min(seconds, 30))
        }
        return .seconds(1 << min(max(attempt - 1, 0), 4))
    }

    /// What became of one event's DELETE.
    private enum Removal {
        /// Deleted, or gone already.
        case deleted
        /// A create we never saw answered, and what is there is not ours: left alone.
        case notOurs
        /// The server answered 412 again and again.
        case refused
    }

    /// DELETEs our resource at `url` (`If-Match` its tag); gone already is
    /// done. Without a tag (a create never seen answered) it is fetched
    /// first, and deleted only when ours.
    private func remove(_ url: URL, uid: String, etag: String?, productID: String, session: DAVSession) async throws(RemoteError) -> Removal {
        var tag = etag
        for _ in 0..<3 {
            if tag == nil {
                let current = try await get(url, session: session)
                switch current.status {
                case 404, 410: return .deleted
                case 200:
                    // Not ours after all (the create was refused): nothing of ours to delete.
                    guard PublishPlan.writtenByUs(String(decoding: current.body, as: UTF8.self), uid: uid, productID: productID),
                        let current = current.etag
                    else { return .notOurs }
                    tag = current
                default: throw WebDAV.failure(current, url)
                }
            }
            let reply = try await session.send("DELETE", url, depth: nil, headers: tag.map { [("If-Match", $0)] } ?? [], body: nil, contentType: "")
            switch reply.status {
            case 200..<300, 404, 410:
                return .deleted
            case 412:
                let current = try await get(url, session: session)
                switch current.status {
                case 404, 410: return .deleted
                case 200: tag = current.etag
                default: throw WebDAV.failure(current, url)
                }
            default:
                throw WebDAV.failure(reply, url)
            }
        }
        return .refused
    }

    private func get(_ url: URL, session: DAVSession) async throws(RemoteError) -> DAVSession.Reply {
        let reply = try await session.send("GET", url, depth: nil, headers: [], body: nil, contentType: "")
        if reply.status == 401 { throw .unauthorized(url: DAVSession.display(url)) }
        return reply
    }

    // MARK: - Removing

    /// Deletes the calendar collection (`remove --delete-calendar`, for a calendar we made).
    package func deleteCalendar(_ target: PublishTarget, password: String?) async throws(PublishError) {
        guard let url = URL(string: target.calendarURL) else {
            throw .invalidLocation(location: target.calendarURL, reason: "not a URL")
        }
        let session = DAVSession(
            username: target.username,
            password: password,
            userAgent: userAgent,
            limits: .discovery(deadline: deadline),
            followsRedirects: false
        )
        let result: Result<Void, RemoteError>
        do throws(RemoteError) {
            let reply = try await session.send("DELETE", url, depth: nil, headers: [], body: nil, contentType: "")
            guard (200..<300).contains(reply.status) || reply.status == 404 else { throw WebDAV.failure(reply, url) }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await session.shutdown()
        do throws(RemoteError) { try result.get() } catch { throw .connection(error) }
    }
}

/// The request bodies of publishing (RFC 4791, RFC 4918).
enum CalDAVRequests {
    private static let header = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"

    /// What a URL is: a calendar, a principal, a calendar home set.
    static let describe =
        header + """
            <d:propfind xmlns:d="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav">
              <d:prop><d:resourcetype/><d:displayname/><d:current-user-principal/><cal:calendar-home-set/></d:prop>
            </d:propfind>
            """

    /// The members of a home set that may be calendars.
    static let listCollections =
        header + """
            <d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:displayname/></d:prop></d:propfind>
            """

    /// What changed since `token` (RFC 6578; every member for no token), entity tags only.
    static func syncCollection(token: String?) -> String {
        let tokenElement = token.map { "<d:sync-token>\(WebDAVXML.escape($0))</d:sync-token>" } ?? "<d:sync-token/>"
        return header + #"<d:sync-collection xmlns:d="DAV:">"# + tokenElement
            + "<d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"
    }

    /// Every member's entity tag (Depth 1).
    static let memberETags =
        header + """
            <d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>
            """

    /// A new calendar of events named `displayName`, of colour `color` (`#RRGGBBAA`) when given.
    static func makeCalendar(displayName: String, color: String?) -> String {
        let colorProperty = color.map { "\n    <ical:calendar-color>\(WebDAVXML.escape($0))</ical:calendar-color>" } ?? ""
        return header + """
            <cal:mkcalendar xmlns:d="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav" xmlns:ical="http://apple.com/ns/ical/">
              <d:set><d:prop>
                <d:displayname>\(WebDAVXML.escape(displayName))</d:displayname>
                <cal:supported-calendar-component-set><cal:comp name="VEVENT"/></cal:supported-calendar-component-set>\(colorProperty)
              </d:prop></d:set>
            </cal:mkcalendar>
            """
    }
}
