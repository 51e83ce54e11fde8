import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// TCP ports on 127.0.0.1 for servers under test.
public enum Loopback {
    /// A listening socket on a free port, held until ``Listener/close()``:
    /// the port is taken for as long as a test needs it to be.
    public final class Listener: @unchecked Sendable {
        public let port: Int
        private var fd: Int32

        public init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw TestSupportError("socket: \(String(cString: strerror(errno)))") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 16) == 0 else {
                Glibc.close(fd)
                throw TestSupportError("bind: \(String(cString: strerror(errno)))")
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else {
                Glibc.close(fd)
                throw TestSupportError("getsockname: \(String(cString: strerror(errno)))")
            }
            port = Int(UInt16(bigEndian: address.sin_port))
            self.fd = fd
        }

        /// Frees the port.
        public func close() {
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }

        deinit { close() }
    }

    /// A port that was free a moment ago: bound, read and closed again.
    public static func freePort() throws -> Int {
        let listener = try Listener()
        listener.close()
        return listener.port
    }
}
