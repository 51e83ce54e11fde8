import BirthdayCore
import Foundation

/// What the invitations feature serves (``InvitationController``): an
/// invitation's form and what its answers come to.
package protocol InvitationSource: Sendable {
    /// The invitation form of the link `token` (`GET /invite/<token>`), or
    /// `nil` when no link has it (404).
    func inviteForm(token: String) async throws -> InviteResponse?
    /// What a `POST` of `body` (at most ``InviteForm/maxBodyBytes``) to the
    /// link `token` comes to, or `nil` when no link has it (404).
    func inviteAnswer(token: String, body: [UInt8]) async throws -> InviteResponse?
    /// The form of link `token` again for a sender over the per-address
    /// limit, with what `body` typed (429), or `nil` (a plain 429).
    func inviteBusy(token: String, body: [UInt8]) async throws -> InviteResponse?
    /// The reverse proxy whose `X-Forwarded-For` and `Forwarded` say who the
    /// client is (``TrustedProxy``), or `nil`: none.
    func trustedProxy() async throws -> TrustedProxy?
    /// The current instant: the clock of the per-address limit
    /// (``InviteRateLimit``), which the controller keeps.
    var now: @Sendable () -> Date { get }
}

/// A page the invitation's address answers with.
package struct InviteResponse: Sendable, Equatable {
    package var status: Int
    package var html: String

    package init(status: Int, html: String) {
        self.status = status
        self.html = html
    }
}
