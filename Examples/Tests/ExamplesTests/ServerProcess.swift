import Foundation
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// An example server, run as a user runs it: the built program as a child process on a free loopback port
/// (`--port 0`), ready once it has printed its `listening on 127.0.0.1:PORT` line. Stop it with ``terminate()``.
///
/// Used by the tests of every example that serves a port (`pubsub-server`, `order-desk`).
final class ServerProcess: Sendable {
    let process: ChildProcess
    let port: Int

    /// Starts `product` with `--port 0` and `arguments`, and returns once it listens.
    ///
    /// - Throws: When the program does not print its `listening` line (it is killed then).
    init(_ product: String, arguments: [String] = []) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process = try ChildProcess(
            ChildProcess.builtProduct(product),
            ["--port", "0"] + arguments,
            environment: environment,
            standardOutput: .capture,
            standardError: .capture
        )
        let ready = process.nextOutputLine() ?? ""
        guard let port = ready.split(separator: ":").last.flatMap({ Int($0) }), ready.contains("listening") else {
            process.send(SIGKILL)
            throw LineClient.Failure(description: "\(product) did not start: \(ready)")
        }
        self.port = port
    }

    /// Stops the server with SIGTERM and returns how it ended.
    func terminate() async -> ChildProcess.Result {
        process.send(SIGTERM)
        return await process.finish()
    }
}
