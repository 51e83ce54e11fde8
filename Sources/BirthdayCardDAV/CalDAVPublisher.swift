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
/// ## Publishing (``publish(to:password:events:published:force:record:forget:)``)
/// 1. `PROPFIND` Depth 1 of the members' entity tags: a resource of ours
///    gone from the calendar is forgotten (and made again if still wanted);
///    one whose tag is not the one we know was changed by another client
///    (iOS writes `ACKNOWLEDGED` into alarms) and is checked again.
/// 2. The ``PublishPlan``: `PUT` with `If-None-Match: *` for new events,
///    `If-Match` for changed ones, `DELETE` with `If-Match` for ours no
///    longer wanted (a 404 is fine). Deleting more than half of 10 or more
///    published events needs `force`.
/// 3. A 412 is normal: the resource is fetched; when its dates, title and
///    alarms are ours (``PublishPlan/sameEvent(_:_:)``) its tag is adopted,
///    else ours is put again with `If-Match` of its tag. A create answered
///    412 (a publish that stopped before recording its write) takes the
///    same path, so nothing is ever written twice.
/// Each success is recorded at once through `record`/`forget`. Resources
/// whose href we did not write are never touched.
package struct CalDAVPublisher: Sendable {
    private let userAgent: String
    private let deadline: Duration

    package init(userAgent: String = "birthdays", deadline: Duration = CardDAVLimits.defaultDeadline) {
        self.userAgent = userAgent
        self.deadline = deadline
    }

    // MARK: - Discovery

    /// The calendar to publish into, found or made from `location`.
    ///
    /// - Throws: ``SourceError``: unauthorized, network, HTTP and XML errors, ``SourceError/notACalendar(url:)``.
    package func discover(
        _ location: String,
        username: String?,
        password: String?,
        calendarName: String
    ) async throws(SourceError) -> PublishDiscovery {
        guard let url = URL(string: location), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw .invalidLocation(location: location, reason: "not an http(s) URL")
        }
        let session = DAVSession(username: username, password: password, userAgent: userAgent, limits: .discovery(deadline: deadline))
        let result: Result<PublishDiscovery, SourceError>
        do throws(SourceError) {
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

    private func discover(_ url: URL, calendarName: String, session: DAVSession) async throws(SourceError) -> PublishDiscovery {
        var found = try await follow(url, session: session)
        if found == nil, let wellKnown = URL(string: "/.well-known/caldav", relativeTo: url)?.absoluteURL, wellKnown.path != url.path {
            found = try await follow(wellKnown, session: session)
        }
        switch found {
        case .calendar(let calendar):
            return PublishDiscovery(calendarURL: CardDAVDiscovery.collection(calendar), created: false)
        case .home(let home):
            return try await calendar(named: calendarName, in: home, session: session)
        case nil:
            throw .notACalendar(url: DAVSession.display(url))
        }
    }

    private func follow(_ url: URL, session: DAVSession) async throws(SourceError) -> Found? {
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

    private func describe(_ url: URL, session: DAVSession) async throws(SourceError) -> (DAVResponse, URL)? {
        let reply = try await session.send("PROPFIND", url, depth: "0", body: CalDAVRequests.describe)
        switch reply.status {
        case 207:
            let answer = try CardDAVReader.multistatus(reply, url)
            return answer.responses.first.map { ($0, reply.url) }
        case 401:
            throw .unauthorized(url: DAVSession.display(url))
        case 403:
            throw .http(url: DAVSession.display(url), status: 403, reason: HTTPStatusText.phrase(403))
        case 400, 404, 405, 409, 412, 415, 501:
            return nil
        default:
            throw CardDAVReader.failure(reply, url)
        }
    }

    /// The calendar of `home` named `name`, else a new one (MKCALENDAR).
    private func calendar(named name: String, in home: URL, session: DAVSession) async throws(SourceError) -> PublishDiscovery {
        let reply = try await session.send("PROPFIND", home, depth: "1", body: CalDAVRequests.listCollections)
        guard reply.status == 207 else { throw CardDAVReader.failure(reply, home) }
        for response in try CardDAVReader.multistatus(reply, home).responses {
            guard response.properties[.resourceType]?.children.contains(.calendar) == true,
                response.text(.displayName) == name,
                let url = URL(string: response.href, relativeTo: reply.url)?.absoluteURL
            else { continue }
            return PublishDiscovery(calendarURL: CardDAVDiscovery.collection(url), created: false)
        }
        let base = CardDAVDiscovery.collection(reply.url)
        let slug = Self.slug(name)
        for attempt in 1...9 {
            guard let url = URL(string: base + slug + (attempt == 1 ? "" : "-\(attempt)") + "/") else { break }
            var made = try await session.send("MKCALENDAR", url, depth: nil, body: CalDAVRequests.makeCalendar(displayName: name, color: Self.color))
            if [400, 403, 422].contains(made.status) {
                // A server that refuses to set the colour (MKCALENDAR sets all its properties or none): once more without it.
                made = try await session.send("MKCALENDAR", url, depth: nil, body: CalDAVRequests.makeCalendar(displayName: name, color: nil))
            }
            switch made.status {
            case 201: return PublishDiscovery(calendarURL: CardDAVDiscovery.collection(url), created: true)
            case 405, 409: continue  // the name is taken
            default: throw CardDAVReader.failure(made, url)
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
    ///   - record: stores a resource written or adopted, at once.
    ///   - forget: forgets a resource deleted or gone, at once.
    /// - Returns: the report; its error says why it stopped (what was done before is recorded).
    package func publish(
        to target: PublishTarget,
        password: String?,
        events: [PublishEvent],
        published: [String: PublishedEvent],
        force: Bool,
        record: @escaping @Sendable (PublishedEvent) async throws(SourceError) -> Void,
        forget: @escaping @Sendable (String) async throws(SourceError) -> Void
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
            limits: .sync(knownCards: max(events.count, published.count), deadline: deadline),
            followsRedirects: false
        )
        do throws(SourceError) {
            try await run(
                calendar,
                target: target,
                events: events,
                published: published,
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
        events: [PublishEvent],
        published: [String: PublishedEvent],
        force: Bool,
        session: DAVSession,
        report: inout PublishReport,
        record: @Sendable (PublishedEvent) async throws(SourceError) -> Void,
        forget: @Sendable (String) async throws(SourceError) -> Void
    ) async throws(SourceError) {
        // What we wrote (or were about to create) before this publish: only those addresses may be taken over.
        let ours = Set(published.keys)
        var changedElsewhere = Set<String>()
        if !published.isEmpty, let members = try await memberTags(calendar, session: session) {
            for (uid, event) in published where members[Self.decoded(event.href)] != event.etag {
                // Changed, or not listed (deleted by someone else, or listed without a tag): the
                // conditional requests below find out (a DELETE of a gone resource is done; a PUT
                // that finds it gone makes it again).
                changedElsewhere.insert(uid)
            }
        }
        var wanted: [String: String] = [:]
        var bytes: [String: PublishEvent] = [:]
        for event in events {
            wanted[event.uid] = event.hash
            bytes[event.uid] = event
        }
        let plan = PublishPlan(
            wanted: wanted,
            published: published,
            calendarPath: calendar.path(percentEncoded: true),
            changedElsewhere: changedElsewhere
        )
        if !force && PublishPlan.needsForce(deleting: plan.deletes.count, of: published.count) {
            throw .publishMassRemoval(target: target.name, deleting: plan.deletes.count, of: published.count)
        }
        report.unchanged = plan.unchanged
        for put in plan.puts {
            guard let event = bytes[put.uid], let url = URL(string: put.href, relativeTo: calendar)?.absoluteURL else { continue }
            let mayTakeOver = ours.contains(put.uid)
            if !mayTakeOver {
                try await record(PublishedEvent(uid: put.uid, href: put.href, etag: nil, hash: PublishedEvent.pending))
            }
            guard let (etag, wrote) = try await write(event, to: url, etag: put.etag, mayTakeOver: mayTakeOver, session: session) else {
                // Someone else's resource at our address: left alone, and not ours.
                try await forget(put.uid)
                report.foreign.append(put.href)
                continue
            }
            try await record(PublishedEvent(uid: put.uid, href: put.href, etag: etag, hash: event.hash))
            if wrote { report.put += 1 } else { report.unchanged += 1 }
        }
        for delete in plan.deletes {
            guard let url = URL(string: delete.href, relativeTo: calendar)?.absoluteURL else { continue }
            try await remove(url, etag: delete.etag, session: session)
            try await forget(delete.uid)
            report.deleted += 1
        }
    }

    /// The entity tag of every member of the calendar, by decoded path;
    /// `nil` when the server does not list them.
    private func memberTags(_ calendar: URL, session: DAVSession) async throws(SourceError) -> [String: String]? {
        let reply = try await session.send("PROPFIND", calendar, depth: "1", body: CalDAVRequests.memberETags)
        switch reply.status {
        case 207: break
        case 401, 403, 404: throw CardDAVReader.failure(reply, calendar)
        default: return nil
        }
        var tags: [String: String] = [:]
        for response in try CardDAVReader.multistatus(reply, calendar).responses {
            guard let tag = response.text(.getETag), let url = URL(string: response.href, relativeTo: reply.url)?.absoluteURL else { continue }
            tags[Self.decoded(url.path(percentEncoded: true))] = tag
        }
        return tags
    }

    static func decoded(_ path: String) -> String {
        path.removingPercentEncoding ?? path
    }

    /// PUTs `event` at `url` (create without `etag`, update with it), with
    /// the 412 rule; returns the resource's tag and whether we wrote it, or
    /// `nil` when a create finds a resource there that is not ours
    /// (`mayTakeOver` false: no record of writing it): never overwritten.
    private func write(
        _ event: PublishEvent,
        to url: URL,
        etag: String?,
        mayTakeOver: Bool,
        session: DAVSession
    ) async throws(SourceError) -> (String?, Bool)? {
        var condition = etag.map { ("If-Match", $0) } ?? ("If-None-Match", "*")
        for _ in 0..<3 {
            let reply = try await session.send(
                "PUT",
                url,
                depth: nil,
                headers: [condition],
                body: event.bytes,
                contentType: "text/calendar; charset=utf-8"
            )
            switch reply.status {
            case 200..<300:
                if let tag = reply.etag { return (tag, true) }
                let current = try await get(url, session: session)
                return (current.status == 200 ? current.etag : nil, true)
            case 404 where condition.0 == "If-Match", 410 where condition.0 == "If-Match":
                // Updating what someone else deleted: made again.
                condition = ("If-None-Match", "*")
            case 412:
                let current = try await get(url, session: session)
                switch current.status {
                case 404, 410:
                    condition = ("If-None-Match", "*")
                case 200:
                    guard let tag = current.etag else {
                        throw .badResponse(url: DAVSession.display(url), reason: "the server sent no ETag for it")
                    }
                    // A resource we never wrote, at the address a create chose: not ours to adopt or rewrite.
                    if condition.0 == "If-None-Match" && !mayTakeOver { return nil }
                    if PublishPlan.sameEvent(event.bytes, String(decoding: current.body, as: UTF8.self)) { return (tag, false) }
                    condition = ("If-Match", tag)
                default:
                    throw CardDAVReader.failure(current, url)
                }
            default:
                throw CardDAVReader.failure(reply, url)
            }
        }
        throw .http(url: DAVSession.display(url), status: 412, reason: "Precondition Failed (changed again and again by another client)")
    }

    /// DELETEs the resource at `url` (`If-Match` its tag); gone already is fine.
    private func remove(_ url: URL, etag: String?, session: DAVSession) async throws(SourceError) {
        var tag = etag
        for _ in 0..<3 {
            let reply = try await session.send("DELETE", url, depth: nil, headers: tag.map { [("If-Match", $0)] } ?? [], body: nil, contentType: "")
            switch reply.status {
            case 200..<300, 404, 410:
                return
            case 412:
                let current = try await get(url, session: session)
                switch current.status {
                case 404, 410: return
                case 200: tag = current.etag
                default: throw CardDAVReader.failure(current, url)
                }
            default:
                throw CardDAVReader.failure(reply, url)
            }
        }
        throw .http(url: DAVSession.display(url), status: 412, reason: "Precondition Failed")
    }

    private func get(_ url: URL, session: DAVSession) async throws(SourceError) -> DAVSession.Reply {
        let reply = try await session.send("GET", url, depth: nil, headers: [], body: nil, contentType: "")
        if reply.status == 401 { throw .unauthorized(url: DAVSession.display(url)) }
        return reply
    }

    // MARK: - Removing

    /// Deletes the calendar collection (`remove --delete-calendar`, for a calendar we made).
    package func deleteCalendar(_ target: PublishTarget, password: String?) async throws(SourceError) {
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
        let result: Result<Void, SourceError>
        do throws(SourceError) {
            let reply = try await session.send("DELETE", url, depth: nil, headers: [], body: nil, contentType: "")
            guard (200..<300).contains(reply.status) || reply.status == 404 else { throw CardDAVReader.failure(reply, url) }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await session.shutdown()
        try result.get()
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
