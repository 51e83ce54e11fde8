import BirthdayCore
import Foundation
import HTTPTypes
import Logging
import NIOCore

/// Answers a revalidation from the request's bytes, before NIO's HTTP/1
/// decoder and the HTTP-types codec see it: the same `304` that
/// ``FeedRevalidationHandler`` writes, without the parts, the header
/// conversions and the trip through the pipeline and back that cost a `304`
/// half of nginx's rate.
///
/// It takes only what it is certain of, and passes everything else on
/// untouched, for good on that connection:
/// - one read that holds one whole request and nothing more: a `GET` or
///   `HEAD` of `/calendar/<token>.ics`, its JSON twin `.json` or the page
///   `/calendar/<token>` in HTTP/1.1 without a query or an escape, with one
///   `If-None-Match` and at most one `Accept-Encoding` and one `Host`, and
///   no `Content-Length`, `Transfer-Encoding`, `Expect` or `Upgrade`, and
///   no `Connection` but `keep-alive` (a folded header line is refused too);
/// - while nothing passed on awaits its answer (``FeedRevalidationHandler``
///   is idle), so answers stay in request order;
/// - when the validators are fresh, the token matches in constant time and
///   the tag matches, as ``FeedRevalidationHandler`` decides.
///
/// Requests it answers are never seen by the connection-state handler, so
/// one request in every third of the idle timeout is passed on instead (and
/// answered by ``FeedRevalidationHandler``): a connection that keeps
/// revalidating is not closed as idle. With access lines on (info), it
/// steps aside and the pipeline logs every request.
final class FeedRevalidationBytes: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let validators: RevalidationOracle
    private let behind: FeedRevalidationHandler
    private let passEvery: Duration
    private var passing: Bool
    private var lastPassed = ContinuousClock.now
    private var response: (second: Int, etag: String, lastModifiedText: String, isPage: Bool, bytes: ByteBuffer)?

    /// - Parameters:
    ///   - behind: the handler that answers revalidations after the decoder, on the same connection.
    ///   - idleTimeout: the connection-state handler's; a request is passed on a third of it after the last.
    init(
        validators: @escaping RevalidationOracle,
        behind: FeedRevalidationHandler,
        idleTimeout: Duration,
        logger: Logger
    ) {
        self.validators = validators
        self.behind = behind
        self.passEvery = idleTimeout / 3
        self.passing = logger.logLevel <= .info
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !passing else {
            context.fireChannelRead(data)
            return
        }
        let buffer = unwrapInboundIn(data)
        guard behind.isIdle else {
            passing = true
            context.fireChannelRead(data)
            return
        }
        // The request's bytes in place (no view to retain and release per slice).
        let outcome = buffer.withUnsafeReadableBytes { bytes -> Outcome in
            guard let request = Self.revalidation(bytes) else { return .notRevalidation }
            let now = ContinuousClock.now
            guard now - lastPassed < passEvery, let answer = answer(request) else {
                lastPassed = now
                return .passOn
            }
            return .answer(answer)
        }
        switch outcome {
        case .notRevalidation:
            passing = true
            context.fireChannelRead(data)
        case .passOn:
            context.fireChannelRead(data)
        case .answer(let answer):
            context.write(wrapInboundOut(answer), promise: nil)
            context.flush()
        }
    }

    private enum Outcome {
        case notRevalidation, passOn
        case answer(ByteBuffer)
    }

    /// What the request asks, when it is a revalidation this handler may answer.
    struct Revalidation<Token: Collection<UInt8>> {
        var token: Token
        var target: RevalidationTarget
        /// The `If-None-Match` value's bytes (compared as they are with the usual single tag).
        var ifNoneMatch: Token
        var acceptsGzip: Bool
    }

    /// The `304` for `request`, or `nil` when it is not one (stale, another token, another tag).
    private func answer<Token>(_ request: Revalidation<Token>) -> ByteBuffer? {
        guard let fresh = validators(request.target, { String(decoding: request.token, as: UTF8.self) }) else { return nil }
        let etag = request.acceptsGzip ? fresh.gzipETag : fresh.etag
        guard FeedToken.constantTimeEquals(request.token, fresh.token.utf8),
            request.ifNoneMatch.elementsEqual(etag.utf8)
                || EntityTags.list(String(decoding: request.ifNoneMatch, as: UTF8.self), matches: etag)
        else { return nil }
        return notModified(fresh, etag: etag)
    }

    /// The bytes ``FeedRevalidationHandler``'s `304` is encoded to, built once per tag and second.
    private func notModified(_ validators: FeedValidators, etag: String) -> ByteBuffer {
        let second = Int(Date().timeIntervalSince1970.rounded(.down))
        if let cached = response, cached.second == second, cached.etag == etag, cached.lastModifiedText == validators.lastModifiedText,
            cached.isPage == validators.isPage
        {
            return cached.bytes
        }
        let fields = FeedRevalidationHandler.notModifiedFields(validators, etag: etag)
        let text =
            "HTTP/1.1 304 Not Modified\r\n" + fields.map { "\($0.name.rawName): \($0.value)\r\n" }.joined()
            + "Date: \(HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(second))))\r\n\r\n"
        let bytes = ByteBuffer(string: text)
        response = (second, etag, validators.lastModifiedText, validators.isPage, bytes)
        return bytes
    }

    private static let version = Array(" HTTP/1.1\r\n".utf8)

    /// Header names and a value, lower case, made once (not per request).
    private enum Header {
        static let connection = Array("connection".utf8)
        static let keepAlive = Array("keep-alive".utf8)
        static let ifNoneMatch = Array("if-none-match".utf8)
        static let acceptEncoding = Array("accept-encoding".utf8)
        static let host = Array("host".utf8)
    }
    private static let refused: [[UInt8]] = ["content-length", "transfer-encoding", "expect", "upgrade"].map { Array($0.utf8) }

    /// The revalidation `bytes` hold, when they are exactly one request of the kind described above.
    static func revalidation<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Revalidation<Bytes.SubSequence>? where Bytes.Index == Int {
        let end = bytes.endIndex
        guard bytes.count > 4, bytes[(end - 4)..<end].elementsEqual("\r\n\r\n".utf8) else { return nil }
        var index = bytes.startIndex
        if bytes[index...].starts(with: "GET ".utf8) {
            index += 4
        } else if bytes[index...].starts(with: "HEAD ".utf8) {
            index += 5
        } else {
            return nil
        }
        guard let space = bytes[index...].firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let path = bytes[index..<space]
        guard path.starts(with: "/calendar/".utf8), bytes[space...].starts(with: version) else { return nil }
        index = space + version.count
        var ifNoneMatch: Bytes.SubSequence?
        var acceptEncoding: String?
        var host: String?
        // Header lines up to the blank line that ends the request (checked above to be the last four bytes).
        while index < end - 2 {
            guard let lineEnd = bytes[index...].firstIndex(of: UInt8(ascii: "\r")), lineEnd + 1 < end, bytes[lineEnd + 1] == UInt8(ascii: "\n"),
                let colon = bytes[index..<lineEnd].firstIndex(of: UInt8(ascii: ":")), colon > index
            else { return nil }
            let name = bytes[index..<colon]
            guard !name.contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 >= 0x80 }) else { return nil }
            var valueStart = colon + 1
            var valueEnd = lineEnd
            while valueStart < valueEnd, bytes[valueStart] == UInt8(ascii: " ") || bytes[valueStart] == UInt8(ascii: "\t") { valueStart += 1 }
            while valueEnd > valueStart, bytes[valueEnd - 1] == UInt8(ascii: " ") || bytes[valueEnd - 1] == UInt8(ascii: "\t") { valueEnd -= 1 }
            let value = bytes[valueStart..<valueEnd]
            if refused.contains(where: { equalsIgnoringCase(name, $0) }) { return nil }
            // What HTTP/1.1 means without it; anything else (close, upgrade) takes the pipeline.
            if equalsIgnoringCase(name, Header.connection), !equalsIgnoringCase(value, Header.keepAlive) { return nil }
            if equalsIgnoringCase(name, Header.ifNoneMatch) {
                guard ifNoneMatch == nil else { return nil }
                ifNoneMatch = value
            } else if equalsIgnoringCase(name, Header.acceptEncoding) {
                guard acceptEncoding == nil else { return nil }
                acceptEncoding = String(decoding: value, as: UTF8.self)
            } else if equalsIgnoringCase(name, Header.host) {
                guard host == nil else { return nil }
                host = String(decoding: value, as: UTF8.self)
            }
            index = lineEnd + 2
        }
        guard index == end - 2, let ifNoneMatch, let (token, target) = RevalidationTarget.parse(path, host: host) else { return nil }
        return Revalidation(token: token, target: target, ifNoneMatch: ifNoneMatch, acceptsGzip: acceptEncoding.map(Gzip.isAccepted) ?? false)
    }

    private static func equalsIgnoringCase<Name: Collection<UInt8>>(_ name: Name, _ lower: [UInt8]) -> Bool {
        name.count == lower.count && zip(name, lower).allSatisfy { a, b in (a >= 0x41 && a <= 0x5A ? a | 0x20 : a) == b }
    }
}

@available(*, unavailable)
extension FeedRevalidationBytes: Sendable {}
