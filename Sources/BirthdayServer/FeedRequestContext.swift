import Hummingbird
import NIOCore

/// The request context of the feed server: Hummingbird's basic one, with
/// the peer's address, which the invitation form's per-address limit counts
/// by (``InvitationController``). The address is never logged.
struct FeedRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address; `nil` when the channel has none (a Unix socket, a test channel).
    let peerAddress: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }
}
