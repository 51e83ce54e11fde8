import BirthdayCalendar
import BirthdayCore
import BirthdayStore
import Foundation

/// What one share (`birthdays share add`) serves: the owner's feed, JSON
/// and page limited as ``Share`` says, under the share's own token; never
/// an invitation (it is no ``InvitationSource``).
///
/// Made by ``DatabaseFeedSource/share(token:)`` for a request whose token
/// is a share's; the server keeps its caches per share token, so a rotated
/// share starts afresh and no other share or the owner's feed is touched.
/// A share removed meanwhile answers 404 (``FeedSourceNoList``).
package struct ShareFeedSource: PageSource {
    let owner: DatabaseFeedSource
    let share: Share
    let shareToken: String

    package func revision() async throws -> Int64 { try await owner.revision() }

    package func token() async throws -> String { shareToken }

    package func listRevision() async throws -> Int64 { try await owner.listRevision() }

    package func feed() async throws -> FeedSnapshot {
        guard let contents = try await owner.database.shareFeedContents(id: share.id) else { throw FeedSourceNoList() }
        return try await owner.feed(from: contents, includeAlarms: false)
    }

    package func list() async throws -> FeedSnapshot {
        let zone = try await owner.zone()
        let today = LocalDate.today(at: owner.now(), in: zone)
        guard let contents = try await owner.database.shareListContents(id: share.id, today: today, withinDays: 365) else {
            throw FeedSourceNoList()
        }
        return await owner.list(from: contents, today: today, zone: zone)
    }

    package func page(_ request: PageRequest) async throws -> FeedSnapshot {
        let zone = try await owner.zone()
        let today = LocalDate.today(at: owner.now(), in: zone)
        guard let contents = try await owner.database.sharePageContents(id: share.id, today: today) else { throw FeedSourceNoList() }
        return await owner.page(from: contents, request: request, token: shareToken, today: today, zone: zone, showAges: share.agesShown)
    }
}
