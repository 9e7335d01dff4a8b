import CMainlineShims
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Why not swift-subprocess 1.0.2: it holds up — run against ChildProcessTests' scenarios after an exit test in the same
// binary, it waits on its own child (a pidfd and `waitid(P_PIDFD)`, Linux 5.4 and later; older kernels get a SIGCHLD
// handler), reaps no other child, empties the child's signal mask, keeps its pipes close-on-exec, streams lines and
// sends signals. But its API is async and scoped: nothing runs synchronously (TmuxSession runs tmux from its init and
// deinit), and an execution cannot outlive `run`'s closure (PubSubServerTests' `Server` keeps a server running across
// a test). Moving means restructuring those tests around closures; until then this is the one mechanism for both
// packages, and a product only because the examples' package cannot reach a target that is not one.

/// A child process for tests: started with `posix_spawn` and reaped with `waitpid` on its own pid.
///
/// Not API: `_MainlineTestSupport` serves Mainline's own tests and examples, and may change in any release.
///
/// Tests of a program built on Mainline often need it as a separate process: owner mode needs the process main
/// thread, which the test runner owns, and an example is best tested as a user runs it. Use this instead of
/// Foundation's `Process` in a test binary that also runs exit tests (`#expect(processExitsWith:)`). Once one has run,
/// Swift Testing's child monitor and Foundation's SIGCHLD handling race, and `Process.waitUntilExit()` can wait
/// forever on a child that has already exited. Mainline's own CI hung that way: a zombie `tmux` client, a spinning
/// monitor thread, and a test stuck in `waitUntilExit()`. `waitpid` on the child's own pid cannot miss its exit.
///
/// ```swift
/// let result = try await ChildProcess.run(ChildProcess.builtProduct("my-tool"), ["--check"])
/// #expect(result.status == 0)
/// #expect(result.standardOutput.contains("ok"))
/// ```
///
/// Other properties the tests rely on:
/// - The child's standard input is `/dev/null`, unless the caller gives it a descriptor.
/// - Each standard output or error stream is captured, discarded or inherited.
/// - The pipes are close-on-exec, so no other child (a `tmux` server, a concurrently spawned probe) inherits them and
///   keeps them open.
///
/// Thread-safe. Blocking work (reading the pipes, waiting for the exit) runs on threads of its own, never on the
/// concurrency pool, except in ``finishBlocking()``.
public final class ChildProcess: @unchecked Sendable {  // immutable after init; the pipes are read once, by `finish()`
    /// What becomes of one of the child's output streams.
    public enum Output: Sendable {
        /// Sent to `/dev/null`.
        case discard
        /// Collected; returned by ``finish()``.
        case capture
        /// Shared with the test process.
        case inherit
    }

    /// How a child ended, and what it printed on the captured streams.
    public struct Result: Sendable {
        /// The exit code, or `128 + signal` when a signal ended it (as a shell reports it).
        public var status: Int32
        /// The signal that ended it, if one did.
        public var signal: Int32?
        /// What it wrote to standard output (empty unless captured).
        public var standardOutput: String
        /// What it wrote to standard error (empty unless captured).
        public var standardError: String
    }

    /// A failure to start the child.
    public struct SpawnError: Error, CustomStringConvertible {
        /// The executable that could not be started.
        public var executable: String
        /// The `errno` value `posix_spawn` or `pipe2` returned.
        public var code: Int32
        /// A readable description naming the executable and the error.
        public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    /// The child's process id.
    public let pid: pid_t
    private let outputPipe: Int32?
    private let errorPipe: Int32?
    /// Standard output read by ``nextOutputLine()`` past the line it returned; `finish()` starts with it.
    /// Protected by `unreturnedOutputLock`.
    private var unreturnedOutput: [UInt8] = []
    private let unreturnedOutputLock = NSLock()

    /// Starts `executable` with `arguments`. Standard input is `/dev/null`.
    ///
    /// - Parameters:
    ///   - executable: A path; or, when `searchPath` is `true`, a name looked up on `PATH`.
    ///   - arguments: The arguments after the program's name.
    ///   - environment: The child's environment; `nil` passes the test process's own.
    ///   - searchPath: Whether to look `executable` up on `PATH` (`posix_spawnp`).
    ///   - standardOutput: What becomes of the child's standard output.
    ///   - standardError: What becomes of the child's standard error.
    ///   - standardInput: A descriptor the child gets as its standard input (a duplicate: the caller keeps its own
    ///     and closes it); `/dev/null` when `nil`.
    ///   - newSession: Whether the child starts a session and process group of its own (`setsid`), so that signals
    ///     sent to the test process's group or terminal (Ctrl-C, a runner killing the group) do not reach it.
    /// - Throws: ``SpawnError`` naming the executable and the error, when the child cannot be started.
    public init(
        _ executable: String,
        _ arguments: [String] = [],
        environment: [String: String]? = nil,
        searchPath: Bool = false,
        standardOutput: Output = .discard,
        standardError: Output = .discard,
        standardInput: Int32? = nil,
        newSession: Bool = false
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput, 0)  // dup2 clears close-on-exec on 0
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }

        var parentEnds: [Int32?] = []
        var childEnds: [Int32] = []
        for (fd, output) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
            switch output {
            case .discard:
                posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
                parentEnds.append(nil)
            case .inherit:
                parentEnds.append(nil)
            case .capture:
                var ends: [Int32] = [-1, -1]
                guard mainline_pipe_cloexec(&ends) == 0 else {
                    let code = errno
                    (parentEnds.compactMap { $0 } + childEnds).forEach { close($0) }
                    throw SpawnError(executable: executable, code: code)
                }
                posix_spawn_file_actions_adddup2(&actions, ends[1], fd)  // dup2 clears close-on-exec on `fd`
                parentEnds.append(ends[0])
                childEnds.append(ends[1])
            }
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environmentStrings = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = environmentStrings.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }

        // A clean signal state: the spawning thread may be a dispatch worker, which blocks most signals, and a child
        // inherits its mask — a blocked SIGTERM would never end it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newSession { flags |= Self.spawnSetSID }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var pid: pid_t = 0
        let code =
            searchPath
            ? posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
            : posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        childEnds.forEach { close($0) }
        guard code == 0 else {
            parentEnds.compactMap { $0 }.forEach { close($0) }
            throw SpawnError(executable: executable, code: code)
        }
        self.pid = pid
        self.outputPipe = parentEnds[0]
        self.errorPipe = parentEnds[1]
    }

    /// `POSIX_SPAWN_SETSID`: the child calls `setsid()` before it runs the program (glibc 2.26 and musl; the value is
    /// 0x80 in both `spawn.h`s). Swift's Glibc module leaves it out: it is declared only under `_GNU_SOURCE`.
    private static let spawnSetSID: Int32 = 0x80

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Reads the next line of the captured standard output as the child writes it, blocking the calling thread
    /// until a whole line or the end of the stream arrives; `nil` at the end (or when standard output is not
    /// captured). What it read past that line is kept for the next call and for ``finish()``.
    ///
    /// Use it to wait for a server to say it is ready. Call it from one thread at a time, and before `finish()`.
    public func nextOutputLine() -> String? {
        guard let outputPipe else { return nil }
        unreturnedOutputLock.lock()
        defer { unreturnedOutputLock.unlock() }
        return Self.nextLine(of: outputPipe, pending: &unreturnedOutput)
    }

    private static func nextLine(of outputPipe: Int32, pending: inout [UInt8]) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let count = buffer.withUnsafeMutableBytes { read(outputPipe, $0.baseAddress, $0.count) }
            if count > 0 {
                pending.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                return nil
            }
        }
    }

    /// Reads the captured streams to their end, waits for the child to exit and reaps it, on a thread of its own.
    /// Call it (or ``finishBlocking()``) once.
    public func finish() async -> Result {
        await withCheckedContinuation { (done: CheckedContinuation<Result, Never>) in
            Thread.detachNewThread { done.resume(returning: self.finishBlocking()) }
        }
    }

    /// ``finish()`` on the calling thread, which it blocks: for children that exit at once (a `tmux` command).
    public func finishBlocking() -> Result {
        // Both pipes are read at once, so a chatty child can never block on a full one.
        let errors = _ReadToEnd(errorPipe)
        let earlier = unreturnedOutputLock.withLock { unreturnedOutput }
        let output = String(decoding: earlier, as: UTF8.self) + Self.readToEnd(outputPipe)
        let standardError = errors.wait()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let terminatingSignal = status & 0x7f
        return Result(
            status: terminatingSignal == 0 ? (status >> 8) & 0xff : 128 + terminatingSignal,
            signal: terminatingSignal == 0 ? nil : terminatingSignal,
            standardOutput: output,
            standardError: standardError
        )
    }

    /// Starts a child, collects what it prints and waits for it to exit.
    ///
    /// - Parameters:
    ///   - executable: A path; or, when `searchPath` is `true`, a name looked up on `PATH`.
    ///   - arguments: The arguments after the program's name.
    ///   - environment: The child's environment; `nil` passes the test process's own.
    ///   - searchPath: Whether to look `executable` up on `PATH`.
    ///   - standardOutput: What becomes of the child's standard output; captured by default.
    ///   - standardError: What becomes of the child's standard error; captured by default.
    /// - Returns: How it ended and what it printed.
    /// - Throws: ``SpawnError`` when the child cannot be started.
    public static func run(
        _ executable: String,
        _ arguments: [String] = [],
        environment: [String: String]? = nil,
        searchPath: Bool = false,
        standardOutput: Output = .capture,
        standardError: Output = .capture
    ) async throws -> Result {
        try await ChildProcess(
            executable,
            arguments,
            environment: environment,
            searchPath: searchPath,
            standardOutput: standardOutput,
            standardError: standardError
        ).finish()
    }

    /// The path of an executable built beside the test binary (`swift build` puts every product in one folder).
    public static func builtProduct(_ name: String) throws -> String {
        let testBinary = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        )
        return testBinary.deletingLastPathComponent().appendingPathComponent(name).path
    }

    static func readToEnd(_ fd: Int32?) -> String {
        guard let fd else { return "" }
        defer { close(fd) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Reads one pipe to its end on a thread of its own.
private final class _ReadToEnd: @unchecked Sendable {  // `text` is written before `finished.signal()`, read after
    private let finished = DispatchSemaphore(value: 0)
    private var text = ""

    init(_ fd: Int32?) {
        guard fd != nil else {
            finished.signal()
            return
        }
        Thread.detachNewThread { [self] in
            text = ChildProcess.readToEnd(fd)
            finished.signal()
        }
    }

    func wait() -> String {
        finished.wait()
        return text
    }
}
