import Foundation
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// An example serving its loop inspector (`--inspect PATH`), and `mainline-console` reading it: the helpers of the
/// inspector's tests.
enum Inspection {
    /// A folder of its own under `/tmp` for a test's socket (a socket's path must stay short).
    static func socketFolder() -> String {
        makeTemporaryFolder(prefix: "mainline-examples")
    }

    /// Runs the built `mainline-console` with `arguments` and returns how it ended.
    static func console(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(ChildProcess.builtProduct("mainline-console"), arguments)
    }

    /// Waits until `mainline-console --once --json path` reads a snapshot, and returns it: the program that serves it
    /// may still be starting. Gives up when the console's complaint has stood still for a minute.
    static func snapshot(at path: String) async throws -> [String: Any] {
        var standStill = StandStill<String>(limit: .seconds(60))
        while true {
            let result = try await console(["--once", "--json", path])
            if result.status == 0 {
                let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
                return try #require(object as? [String: Any], "not a JSON object: \(result.standardOutput)")
            }
            if standStill.hasStoodStill(result.standardError) {
                throw LineClient.Failure(
                    description: "no snapshot from \(path) in \(standStill.waited): \(result.standardError)"
                )
            }
        }
    }

    /// The snapshot's loops; an empty list (every process has its main loop) is a failure, and `nil`.
    static func loops(of snapshot: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]]?
    {
        let loops = snapshot["loops"] as? [[String: Any]] ?? []
        guard loops.isEmpty else { return loops }
        Issue.record("the snapshot's loops are empty: \(snapshot)", sourceLocation: sourceLocation)
        return nil
    }

    /// What is wrong with `snapshot` against the fields other tools rely on (schema 1): `schema` a number; each loop
    /// with `name`, `iterations`, `busyPercent`, `delay` {`p50Ms`, `p99Ms`, `maxMs`}, `stalls`, `slowest` [{`site`,
    /// `label`, `durationMs`}]; each mailbox with `name`, `depth`, `capacity`, `dropped`; each view model with `type`
    /// and `state`. Empty when nothing is.
    static func problems(_ snapshot: [String: Any]) -> [String] {
        var problems: [String] = []
        func check(_ condition: Bool, _ what: String) { if !condition { problems.append(what) } }
        func isNumber(_ value: Any?) -> Bool { value is NSNumber && !(value is Bool && "\(value!)" == "true") }
        check(snapshot["schema"] as? Int == 1, "schema is 1")
        for key in ["loops", "mailboxes", "viewModels", "coordinators"] {
            check(snapshot[key] is [Any], "\(key) is an array")
        }
        for loop in snapshot["loops"] as? [[String: Any]] ?? [] {
            let name = loop["name"] as? String ?? "?"
            check(loop["name"] is String, "a loop's name is a string")
            check(loop["iterations"] is Int, "loop \(name): iterations is an integer")
            check(isNumber(loop["busyPercent"]), "loop \(name): busyPercent is a number")
            let delay = loop["delay"] as? [String: Any]
            for key in ["p50Ms", "p99Ms", "maxMs"] {
                check(isNumber(delay?[key]), "loop \(name): delay.\(key) is a number")
            }
            check(loop["stalls"] is [Any], "loop \(name): stalls is an array")
            check(loop["slowest"] is [Any], "loop \(name): slowest is an array")
            for job in loop["slowest"] as? [[String: Any]] ?? [] {
                check(job["site"] is String, "loop \(name): a slow job's site is a string")
                check(
                    job["label"] is String || job["label"] is NSNull,
                    "loop \(name): a slow job's label is a string or null"
                )
                check(isNumber(job["durationMs"]), "loop \(name): a slow job's durationMs is a number")
            }
        }
        for mailbox in snapshot["mailboxes"] as? [[String: Any]] ?? [] {
            check(mailbox["name"] is String || mailbox["name"] is NSNull, "a mailbox's name is a string or null")
            check(mailbox["depth"] is Int, "a mailbox's depth is an integer")
            check(
                mailbox["capacity"] is Int || mailbox["capacity"] is NSNull,
                "a mailbox's capacity is an integer or null"
            )
            check(mailbox["dropped"] is Int, "a mailbox's dropped is an integer")
        }
        for viewModel in snapshot["viewModels"] as? [[String: Any]] ?? [] {
            check(viewModel["type"] is String, "a view model's type is a string")
            check(viewModel["state"] is String, "a view model's state is a string")
        }
        return problems
    }
}

/// `dashboard`, run with standard input kept open (it quits at end of input) and its screen discarded, so that a test
/// can watch it through its inspector. Stop it with ``quit()``.
final class DashboardProcess: Sendable {
    let process: ChildProcess
    /// The write end of the dashboard's standard input, kept open until it stops.
    private let input: Int32

    init(_ arguments: [String]) throws {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw LineClient.Failure(description: "pipe: \(errno)") }
        _ = fcntl(descriptors[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptors[1], F_SETFD, FD_CLOEXEC)
        defer { close(descriptors[0]) }
        input = descriptors[1]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process = try ChildProcess(
            ChildProcess.builtProduct("dashboard"),
            arguments,
            environment: environment,
            standardOutput: .discard,
            standardError: .capture,
            standardInput: descriptors[0]
        )
    }

    /// Presses `q` (exit status 0) and returns how it ended. A key, not SIGINT: the key waits in the pipe until the
    /// dashboard reads keys, where a signal could come before it handles signals.
    func quit() async -> ChildProcess.Result {
        var key = UInt8(ascii: "q")
        _ = write(input, &key, 1)
        let result = await process.finish()
        close(input)
        return result
    }
}
