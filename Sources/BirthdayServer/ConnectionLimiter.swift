import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Keeps the feed server's open connections below the process's descriptor
/// limit, so that anyone who can connect cannot take the process down.
///
/// Without a bound, a few hundred idle connections use up `RLIMIT_NOFILE`:
/// the accept loop then fails on every attempt, SQLite cannot open the
/// database, and libdispatch's worker-pool monitor, which opens
/// `/proc/<tid>/stat` once a second and stops the process when it cannot,
/// kills it with SIGILL. So:
///
/// - At most ``bound`` connections are kept: the soft `RLIMIT_NOFILE` less a
///   reserve (an eighth of the limit, at least 64 and at most 1024) for the
///   database, the log, D-Bus, timers and that monitor.
/// - One more may be accepted, never two: Hummingbird's available-connections
///   handler on the server channel counts what is accepted (``delegate``)
///   and stops accepting at `bound + 1`, so the descriptors in use never
///   overshoot and accepting never fails.
/// - A connection accepted over the bound is not left waiting behind idle
///   ones: the connection idle the longest is closed to make room for it. A
///   connection is idle from the moment it is set up, and again once a
///   response has been written, until the next request head has arrived
///   complete; a client that trickles a request head counts as idle.
/// - A connection whose request head has arrived but whose body has not
///   (a form's answer still being sent) is in the client's hands, not the
///   server's: it is the first to be closed to make room, before any idle
///   one (the one that started its body the longest ago first). A slow
///   client that sends its body a byte at a time cannot hold a place, and
///   ``BodyPaceHandler`` ends it anyway once the body is too slow.
///   Connections with a request in progress (its body read, its response
///   not yet written) are never dropped; when every connection is busy, the
///   next one to finish its response makes room.
final class ConnectionLimiter: Sendable {
    /// The most connections kept at once.
    let bound: Int
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// Accepted and not yet closed (counted on the server channel).
        var accepted = 0
        /// Set up and not yet closed, by channel.
        var connections: [ObjectIdentifier: Connection] = [:]
        /// Connections in the order they became idle; an entry is current
        /// only while its mark equals the connection's.
        var idleOrder = CircularBuffer<(id: ObjectIdentifier, mark: UInt64)>()
        var nextMark: UInt64 = 0
        /// Connections closed to make room that have not finished closing.
        var evicting: Set<ObjectIdentifier> = []
        /// Connections set up over the bound while every other one was busy:
        /// the next to become idle makes room for them, never they themselves.
        var waitingForRoom: [ObjectIdentifier] = []
        var lastWarning: ContinuousClock.Instant?

        /// Connections over the bound that no eviction is taking care of yet.
        func excess(over bound: Int) -> Int { connections.count - evicting.count - bound }

        /// Notes that `id` became idle now. Stale entries (a connection that
        /// became busy or idle again since, or closed) are dropped whenever
        /// they outnumber the current ones, so the order costs memory for the
        /// open connections only, however many requests they make.
        mutating func becameIdle(_ id: ObjectIdentifier) {
            let mark = nextMark
            nextMark += 1
            connections[id]?.mark = mark
            idleOrder.append((id, mark))
            guard idleOrder.count > 2 * connections.count + 64 else { return }
            let current = idleOrder.filter { entry in connections[entry.id].map { !$0.busy && $0.mark == entry.mark } ?? false }
            idleOrder = CircularBuffer(current)
        }
    }

    private struct Connection {
        let channel: any Channel
        /// Its request has been read whole and its response is not written yet.
        var busy = false
        /// Its request head has arrived and its body has not (the order it began in, by ``State/nextMark``).
        var receivingSince: UInt64?
        var mark: UInt64
    }

    /// - Parameters:
    ///   - bound: the most connections kept at once; ``defaultBound()`` when `nil`.
    ///   - logger: told (at most once a minute) when the bound is reached.
    init(bound: Int? = nil, logger: Logger) {
        self.bound = max(1, bound ?? Self.defaultBound())
        self.logger = logger
    }

    /// The soft descriptor limit less a reserve: an eighth of it, at least
    /// 64 and at most 1024; at least 8 connections in any case.
    static func defaultBound() -> Int {
        // sysconf(_SC_OPEN_MAX) is the soft RLIMIT_NOFILE on Linux; -1 when unlimited.
        let soft = sysconf(Int32(_SC_OPEN_MAX))
        guard soft > 0 else { return 4096 }
        return max(8, soft - min(max(64, soft / 8), 1024))
    }

    /// What Hummingbird's available-connections handler consults on the server channel.
    var delegate: some AvailableConnectionsDelegate { Delegate(limiter: self) }

    private struct Delegate: AvailableConnectionsDelegate {
        let limiter: ConnectionLimiter
        mutating func connectionOpened() { limiter.state.withLock { $0.accepted += 1 } }
        mutating func connectionClosed() { limiter.state.withLock { $0.accepted -= 1 } }
        func isAcceptingNewConnections() -> Bool { limiter.accepts() }
    }

    /// Whether another connection may be accepted: up to one over the bound.
    private func accepts() -> Bool {
        let (accepts, warn) = state.withLock { state -> (Bool, Bool) in
            guard state.accepted > bound else { return (true, false) }
            let now = ContinuousClock.now
            let warn = state.lastWarning.map { now - $0 > .seconds(60) } ?? true
            if warn { state.lastWarning = now }
            return (false, warn)
        }
        if warn {
            logger.warning(
                "connection limit reached; closing the connections idle the longest to make room",
                metadata: ["connections.bound": "\(bound)"]
            )
        }
        return accepts
    }

    /// The connection idle the longest (other than those in `except`), now
    /// marked as being evicted; `nil` when every other connection is busy.
    private static func evictOldestIdle(_ state: inout State, except: Set<ObjectIdentifier>) -> (any Channel)? {
        // A connection still sending its body goes first: the one that began the longest ago.
        var oldest: (id: ObjectIdentifier, since: UInt64)?
        for (id, connection) in state.connections {
            guard let since = connection.receivingSince, !except.contains(id), !state.evicting.contains(id) else { continue }
            if oldest.map({ since < $0.since }) ?? true { oldest = (id, since) }
        }
        if let oldest, let connection = state.connections[oldest.id] {
            state.evicting.insert(oldest.id)
            return connection.channel
        }
        var skipped: [(id: ObjectIdentifier, mark: UInt64)] = []
        defer {
            for entry in skipped.reversed() { state.idleOrder.prepend(entry) }
        }
        while let (id, mark) = state.idleOrder.popFirst() {
            guard let connection = state.connections[id], !connection.busy, connection.receivingSince == nil, connection.mark == mark else {
                continue
            }
            if except.contains(id) {
                skipped.append((id, mark))
                continue
            }
            state.evicting.insert(id)
            return connection.channel
        }
        return nil
    }

    /// A connection has been set up: it is idle until its first request
    /// head arrives. When it is one over the bound, the connection idle the
    /// longest before it is closed to make room.
    func register(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let victim = state.withLock { state -> (any Channel)? in
            state.connections[id] = Connection(channel: channel, mark: 0)
            state.becameIdle(id)
            guard state.excess(over: bound) > 0 else { return nil }
            let victim = Self.evictOldestIdle(&state, except: Set(state.waitingForRoom + [id]))
            if victim == nil { state.waitingForRoom.append(id) }
            return victim
        }
        victim?.close(promise: nil)
    }

    /// A connection has closed.
    func unregister(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            state.connections[id] = nil
            state.evicting.remove(id)
            state.waitingForRoom.removeAll { $0 == id }
            if state.connections.isEmpty { state.idleOrder.removeAll(keepingCapacity: false) }
        }
    }

    /// A complete request head has arrived: the connection is receiving its
    /// body (in the client's hands) until ``requestRead(_:)``.
    func requestStarted(_ channel: any Channel) {
        state.withLock { state in
            let mark = state.nextMark
            state.nextMark += 1
            state.connections[ObjectIdentifier(channel)]?.receivingSince = mark
        }
    }

    /// The request's end has arrived: the connection is busy until its
    /// response is flushed (``responseFinished(_:)``). A request already
    /// answered before its end came (a refusal that closes the connection)
    /// stays as it is.
    func requestRead(_ channel: any Channel) {
        state.withLock { state in
            let id = ObjectIdentifier(channel)
            guard state.connections[id]?.receivingSince != nil else { return }
            state.connections[id]?.receivingSince = nil
            state.connections[id]?.busy = true
        }
    }

    /// A response has been flushed. When the connections are over the bound
    /// and none was idle, the one idle the longest (this one, if no other)
    /// is closed to make room, never one that waits for room itself.
    func responseFinished(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let victim = state.withLock { state -> (any Channel)? in
            guard state.connections[id] != nil else { return nil }
            state.connections[id]?.busy = false
            state.connections[id]?.receivingSince = nil
            state.becameIdle(id)
            guard state.excess(over: bound) > 0 else { return nil }
            let victim = Self.evictOldestIdle(&state, except: Set(state.waitingForRoom))
            if victim != nil, !state.waitingForRoom.isEmpty { state.waitingForRoom.removeFirst() }
            return victim
        }
        victim?.close(promise: nil)
    }
}

/// Tells the ``ConnectionLimiter`` when its connection receives a request
/// body (its head has arrived, its end has not), when it is busy (the
/// request is read and its response is not written yet) and when it closes.
/// It sits right after the HTTP-types codec, so the responses of
/// ``FeedRevalidationHandler`` count like any other.
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limiter: ConnectionLimiter

    init(limiter: ConnectionLimiter) {
        self.limiter = limiter
    }

    func handlerAdded(context: ChannelHandlerContext) {
        limiter.register(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        limiter.unregister(context.channel)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        limiter.unregister(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: limiter.requestStarted(context.channel)
        case .body: break
        case .end: limiter.requestRead(context.channel)
        }
        context.fireChannelRead(data)
    }

    /// A response's end has been written and not yet flushed.
    private var endWritten = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { endWritten = true }
        context.write(data, promise: promise)
    }

    /// The connection becomes idle once its response is flushed (handed to
    /// the socket; a client that does not read it is the kind the bound is
    /// for). Done here rather than on each write's promise, so the 304 fast
    /// path allocates nothing for it.
    func flush(context: ChannelHandlerContext) {
        context.flush()
        guard endWritten else { return }
        endWritten = false
        limiter.responseFinished(context.channel)
    }
}

@available(*, unavailable)
extension ConnectionLimitHandler: Sendable {}
