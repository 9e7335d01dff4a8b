// Needs a PostgreSQL server's programs: see PostgresTestClusterTests.swift.
#if Postgres
import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A cluster's port, and what a server that cannot start says: the port comes from below the kernel's ephemeral range
/// (where the test process's own outgoing connections take their source ports), and a failed start keeps the end of the
/// server's log in the error, since the folder that held it is deleted.
@Suite("PostgresTestCluster: its port")
struct PostgresTestClusterPortTests {
    /// The first port of the kernel's ephemeral range.
    static var ephemeralStart: Int {
        (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32_768
    }

    /// A listening socket on 127.0.0.1:`port`, as a server binds one (`SO_REUSEADDR`); the caller closes it.
    static func listen(on port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        // The server's own sessions leave the port in TIME_WAIT after it stops; as the server itself does, bind over
        // those (only an active listener is refused).
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard bound, Glibc.listen(fd, 1) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    @Test func aServerWhosePortAnotherProcessHoldsFailsToStartAndTheErrorSaysWhy() async throws {
        try await PostgresTestCluster.with { cluster in
            #expect(cluster.port < Self.ephemeralStart, "port \(cluster.port) is in the ephemeral range")
            try await cluster.stop()
            guard let holder = Self.listen(on: cluster.port) else {
                Issue.record("could not listen on the stopped cluster's port \(cluster.port)")
                return
            }
            defer { close(holder) }
            do {
                try await cluster.start()
                Issue.record("the server started on port \(cluster.port), which another socket holds")
            } catch let failure as PostgresTestCluster.CommandFailed {
                #expect(failure.serverLog?.contains("Address already in use") == true, "\(failure)")
            }
        }
    }
}
#endif
