import BirthdayCore
internal import CDBus
internal import CWake
import Foundation
import Synchronization

/// A D-Bus error: its well-known name (`org.freedesktop.DBus.Error.ServiceUnknown`)
/// and the message that came with it.
struct DBusFailure: Error, Sendable, Equatable {
    var name: String
    var message: String

    static let disconnected = DBusFailure(name: "org.freedesktop.DBus.Error.Disconnected", message: "the connection to the bus is closed")
    static let noMemory = DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "libdbus could not build the message")

    /// The peer (service) is not on the bus and cannot be started.
    var isServiceMissing: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    /// The connection is gone (libdbus's own "Connection is closed" or ours).
    var isDisconnected: Bool { name == DBusFailure.disconnected.name }

    var isTimeout: Bool {
        name == "org.freedesktop.DBus.Error.NoReply" || name == "org.freedesktop.DBus.Error.Timeout"
    }
}

/// A signal received on a ``DBusClient``'s connection.
struct DBusSignal: Sendable, Equatable {
    var sender: String
    var path: String
    var interface: String
    var member: String
    var arguments: [DBusValue]
}

/// One private connection to a D-Bus bus, served by a dedicated thread.
///
/// Rules:
/// - The connection is private (`dbus_bus_get_private` / `dbus_connection_open_private`),
///   never libdbus's shared one, and never exits the process on disconnect.
/// - Every libdbus call on the connection happens on the client's own thread.
///   Callers enqueue work and await its result; the thread runs it between
///   polls of the connection's socket and an eventfd that wakes it.
/// - Method calls block that thread for at most their timeout; signals that
///   arrive meanwhile are queued by libdbus and dispatched afterwards, in order.
/// - Signals matching the rules given to ``init(bus:matchRules:onSignal:)`` go to `onSignal`, on
///   the client's thread, in the order they arrived — after the reply of any
///   method call sent before them, so a caller that records a reply in
///   `onReply` sees it before the signals that refer to it.
/// - ``close()`` (or releasing the client) stops the thread; the connection is
///   closed and released when the thread has ended.
final class DBusClient: Sendable {
    private let worker: Worker

    /// Whether the connection is still up.
    var isConnected: Bool { worker.isConnected }

    /// Connects and registers on `bus`, adds `matchRules`, then starts the
    /// client's thread. Blocks while the bus authenticates the connection.
    ///
    /// - Parameters:
    ///   - matchRules: signals to receive (see the D-Bus specification's
    ///     "Match Rules"), such as `type='signal',interface='org.freedesktop.Notifications'`.
    ///   - onSignal: called on the client's thread for every signal that a
    ///     match rule lets through; must not block.
    /// - Throws: the D-Bus error that prevented connecting.
    init(bus: DBusBusAddress, matchRules: [String] = [], onSignal: @escaping @Sendable (DBusSignal) -> Void = { _ in }) throws(DBusFailure) {
        let connection = try Self.open(bus)
        for rule in matchRules {
            var error = CDBus.DBusError()
            libdbus.pointee.dbus_error_init(&error)
            libdbus.pointee.dbus_bus_add_match(connection, rule, &error)
            if let failure = Self.failure(&error) {
                libdbus.pointee.dbus_connection_close(connection)
                libdbus.pointee.dbus_connection_unref(connection)
                throw failure
            }
        }
        let wake = cwake_eventfd()
        guard wake >= 0 else {
            libdbus.pointee.dbus_connection_close(connection)
            libdbus.pointee.dbus_connection_unref(connection)
            throw DBusFailure(name: "org.freedesktop.DBus.Error.Failed", message: "eventfd failed: " + String(cString: strerror(-wake)))
        }
        worker = Worker(connection: connection, wakeFD: wake, onSignal: onSignal)
        let worker = self.worker
        let thread = Thread {
            // Named for ps and top: Thread.name does not reach the kernel on Linux.
            cwake_name_thread("birthdays-dbus")
            worker.run()
        }
        thread.start()
    }

    deinit { worker.stop() }

    /// Stops the thread and closes the connection; pending work fails with
    /// ``DBusFailure/disconnected``.
    func close() { worker.stop() }

    /// Calls `method` and returns the reply's arguments.
    ///
    /// - Parameters:
    ///   - onReply: runs on the client's thread with the reply, before any
    ///     signal received after it is dispatched.
    /// - Throws: the error reply, ``DBusFailure/disconnected``, or a `NoReply`
    ///   failure after `timeout`.
    func call(
        destination: String,
        path: String,
        interface: String,
        method: String,
        arguments: [DBusValue] = [],
        timeout: Duration = .seconds(5),
        onReply: (@Sendable ([DBusValue]) -> Void)? = nil
    ) async throws(DBusFailure) -> [DBusValue] {
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let result: Result<[DBusValue], DBusFailure> = await withCheckedContinuation { continuation in
            worker.enqueue(
                { connection in
                    let result = Self.callNow(connection, destination, path, interface, method, arguments, milliseconds)
                    if case .success(let values) = result { onReply?(values) }
                    continuation.resume(returning: result)
                },
                orElse: { continuation.resume(returning: .failure(.disconnected)) }
            )
        }
        return try result.get()
    }

    /// Sends a method call without waiting for (or wanting) a reply; usable
    /// from `onSignal`. Failures are ignored.
    func send(destination: String, path: String, interface: String, method: String, arguments: [DBusValue] = []) {
        worker.enqueue(
            { connection in
                guard let message = libdbus.pointee.dbus_message_new_method_call(destination, path, interface, method) else { return }
                defer { libdbus.pointee.dbus_message_unref(message) }
                var iter = DBusMessageIter()
                libdbus.pointee.dbus_message_iter_init_append(message, &iter)
                for argument in arguments where !argument.append(to: &iter) { return }
                libdbus.pointee.dbus_message_set_no_reply(message, 1)
                _ = libdbus.pointee.dbus_connection_send(connection, message, nil)
                libdbus.pointee.dbus_connection_flush(connection)
            },
            orElse: {}
        )
    }

    /// Whether `name` has an owner on the bus right now.
    func nameHasOwner(_ name: String) async throws(DBusFailure) -> Bool {
        let reply = try await call(
            destination: "org.freedesktop.DBus",
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            method: "NameHasOwner",
            arguments: [.string(name)]
        )
        return reply.first?.boolValue ?? false
    }

    // MARK: - libdbus calls (client thread only)

    private static func open(_ bus: DBusBusAddress) throws(DBusFailure) -> OpaquePointer {
        if case .failure(let failure) = loadedLibdbus { throw failure }
        var error = CDBus.DBusError()
        libdbus.pointee.dbus_error_init(&error)
        let connection: OpaquePointer?
        switch bus {
        case .session: connection = libdbus.pointee.dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        case .system: connection = libdbus.pointee.dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .address(let address):
            connection = libdbus.pointee.dbus_connection_open_private(address, &error)
            if let connection, libdbus.pointee.dbus_bus_register(connection, &error) == 0 {
                libdbus.pointee.dbus_connection_close(connection)
                libdbus.pointee.dbus_connection_unref(connection)
                throw failure(&error) ?? .disconnected
            }
        }
        guard let connection else { throw failure(&error) ?? .disconnected }
        libdbus.pointee.dbus_connection_set_exit_on_disconnect(connection, 0)
        return connection
    }

    private static func callNow(
        _ connection: OpaquePointer,
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ method: String,
        _ arguments: [DBusValue],
        _ milliseconds: Int32
    ) -> Result<[DBusValue], DBusFailure> {
        guard let message = libdbus.pointee.dbus_message_new_method_call(destination, path, interface, method) else { return .failure(.noMemory) }
        defer { libdbus.pointee.dbus_message_unref(message) }
        var iter = DBusMessageIter()
        libdbus.pointee.dbus_message_iter_init_append(message, &iter)
        for argument in arguments where !argument.append(to: &iter) {
            return .failure(.noMemory)
        }
        var error = CDBus.DBusError()
        libdbus.pointee.dbus_error_init(&error)
        guard let reply = libdbus.pointee.dbus_connection_send_with_reply_and_block(connection, message, milliseconds, &error) else {
            return .failure(failure(&error) ?? .disconnected)
        }
        defer { libdbus.pointee.dbus_message_unref(reply) }
        return .success(DBusValue.arguments(of: reply))
    }

    /// Converts and frees a set `DBusError`; `nil` when none is set.
    static func failure(_ error: inout CDBus.DBusError) -> DBusFailure? {
        guard libdbus.pointee.dbus_error_is_set(&error) != 0 else { return nil }
        let failure = DBusFailure(
            name: error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
            message: error.message.map { String(cString: $0) } ?? ""
        )
        libdbus.pointee.dbus_error_free(&error)
        return failure
    }
}

// MARK: - Worker

extension DBusClient {
    /// Owns the `DBusConnection *` and the thread's state. Closed and
    /// released in `deinit`, which runs once both the client and its thread
    /// have let go of it.
    fileprivate final class Worker: @unchecked Sendable {
        // @unchecked: `connection` is only used on the worker's thread (and in
        // deinit, when no thread can use it); everything else is in `state`.
        typealias Job = @Sendable (OpaquePointer) -> Void

        private struct State {
            var jobs: [(run: Job, fail: @Sendable () -> Void)] = []
            var stopped = false
            var connected = true
        }

        private let connection: OpaquePointer
        private let wakeFD: Int32
        private let onSignal: @Sendable (DBusSignal) -> Void
        private let state = Mutex(State())

        init(connection: OpaquePointer, wakeFD: Int32, onSignal: @escaping @Sendable (DBusSignal) -> Void) {
            self.connection = connection
            self.wakeFD = wakeFD
            self.onSignal = onSignal
        }

        deinit {
            libdbus.pointee.dbus_connection_close(connection)
            libdbus.pointee.dbus_connection_unref(connection)
            cwake_close(wakeFD)
        }

        var isConnected: Bool { state.withLock { $0.connected && !$0.stopped } }

        /// Queues `run` for the thread, or calls `fail` at once when the
        /// connection is already gone.
        func enqueue(_ run: @escaping Job, orElse fail: @escaping @Sendable () -> Void) {
            let accepted = state.withLock { state in
                guard state.connected && !state.stopped else { return false }
                state.jobs.append((run, fail))
                return true
            }
            if accepted { _ = cwake_eventfd_signal(wakeFD) } else { fail() }
        }

        func stop() {
            state.withLock { $0.stopped = true }
            _ = cwake_eventfd_signal(wakeFD)
        }

        /// The thread's loop: dispatch what libdbus has queued, run queued
        /// jobs, then sleep in poll() until the socket or the eventfd wakes it.
        func run() {
            let context = Unmanaged.passUnretained(self).toOpaque()
            _ = libdbus.pointee.dbus_connection_add_filter(connection, Worker.filter, context, nil)
            defer { libdbus.pointee.dbus_connection_remove_filter(connection, Worker.filter, context) }
            var socket: Int32 = -1
            _ = libdbus.pointee.dbus_connection_get_unix_fd(connection, &socket)
            while true {
                while libdbus.pointee.dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
                let (jobs, stopped) = state.withLock { state in
                    let jobs = state.jobs
                    state.jobs.removeAll()
                    return (jobs, state.stopped)
                }
                if stopped {
                    for item in jobs { item.fail() }
                    break
                }
                for job in jobs { job.run(connection) }
                if !jobs.isEmpty { continue }
                guard libdbus.pointee.dbus_connection_get_is_connected(connection) != 0 else { break }
                let wantsWrite = libdbus.pointee.dbus_connection_has_messages_to_send(connection) != 0
                var fds = [
                    pollfd(fd: socket, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0),
                    pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&fds, 2, -1)
                if ready < 0 && errno != EINTR { break }
                if fds[0].revents != 0 { _ = libdbus.pointee.dbus_connection_read_write(connection, 0) }
                if fds[1].revents != 0 { _ = cwake_eventfd_drain(wakeFD) }
            }
            let leftover = state.withLock { state in
                state.connected = false
                let jobs = state.jobs
                state.jobs.removeAll()
                return jobs
            }
            for item in leftover { item.fail() }
        }

        private static let filter: DBusHandleMessageFunction = { _, message, context in
            guard let message, let context else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let worker = Unmanaged<Worker>.fromOpaque(context).takeUnretainedValue()
            guard libdbus.pointee.dbus_message_get_type(message) == BDBUS_MESSAGE_TYPE_SIGNAL else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
            let signal = DBusSignal(
                sender: text(libdbus.pointee.dbus_message_get_sender(message)),
                path: text(libdbus.pointee.dbus_message_get_path(message)),
                interface: text(libdbus.pointee.dbus_message_get_interface(message)),
                member: text(libdbus.pointee.dbus_message_get_member(message)),
                arguments: DBusValue.arguments(of: message)
            )
            worker.onSignal(signal)
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }
}

/// libdbus's functions, loaded when the first bus is opened rather than
/// linked (see CDBus.h): commands that never talk to a bus do not map
/// libdbus, libsystemd and the six libraries behind them at start-up.
private let loadedLibdbus: Result<LibdbusTable, DBusFailure> = {
    var failure: UnsafePointer<CChar>?
    guard let table = cdbus_load(&failure) else {
        let reason = failure.map { String(cString: $0) } ?? "unknown error"
        return .failure(DBusFailure(name: "org.freedesktop.DBus.Error.NotSupported", message: "libdbus cannot be loaded: \(reason)"))
    }
    return .success(LibdbusTable(functions: table))
}()

/// The loader's table of function pointers: written once inside the
/// loader's `pthread_once`, read-only after, so it may be shared.
private struct LibdbusTable: @unchecked Sendable {
    let functions: UnsafePointer<cdbus_functions>
}

/// The function table. Every connection is made by ``DBusClient``'s `open`,
/// which throws when libdbus is missing; reaching this without a connection
/// is a programming error.
var libdbus: UnsafePointer<cdbus_functions> {
    switch loadedLibdbus {
    case .success(let table): table.functions
    case .failure(let error): preconditionFailure("libdbus is missing and no connection was opened: \(error.message)")
    }
}
