import MainlineLoop
import MainlineLoopCore

/// Serves what the process's loops are doing — their counters, loop-delay histograms, flight recorders, and the
/// mailboxes, view models and coordinators made since — on a Unix domain socket, for `mainline-console` and any tool
/// that reads its JSON.
///
/// All operations on `LoopInspector` are thread-safe.
///
/// Opt-in: a process serves nothing until it calls ``start(socketPath:)``, and pays nothing for it until then. Start
/// it first thing, before the objects it should show exist: mailboxes, view models and coordinators register when they
/// are made, and only while an inspector has been started (loops register always).
///
/// ```swift
/// let inspector = try LoopInspector.start(socketPath: "/run/user/1000/orders.sock")
/// defer { inspector.stop() }
/// MainLoop.main.run()
/// ```
///
/// ```sh
/// mainline-console /run/user/1000/orders.sock                    # live, in the terminal
/// mainline-console --once --json /run/user/1000/orders.sock      # one snapshot document, for scripts
/// ```
///
/// Guarantees:
/// - **Read-only.** A client can ask for a snapshot or the flight recorders; no request changes a loop or an object.
/// - **Owner-only.** The socket is created with mode `0600`, with no moment at which it has another; a client whose
///   user id (`SO_PEERCRED`) is not the process's effective user id gets one line,
///   `{"error":"refused: peer uid 65534 is not this process's owner (uid 1000)","schema":1}`, and is disconnected.
/// - **Its own loop.** The inspector serves from an `EventLoop` of its own (`inspector`, listed among the loops it
///   shows), never from a loop it shows, so it answers while a loop is stalled — when it is needed most. What it reads
///   from a loop or an object, it reads through their thread-safe state.
/// - **Nothing from outside can crash the process or block it.** A request that is not JSON, not UTF-8, unknown, or
///   longer than 4 KiB gets `{"error":"…","schema":1}` naming what was wrong, and the client can go on asking; a
///   client that sends part of a line and stops is closed after 10 s, one that sends nothing for 10 s (no line since it
///   attached or since its last answer) is told so and closed, one that never reads its answers after 10 s without
///   progress; the seventeenth client at once is refused with a line. Writes never raise `SIGPIPE`.
///
/// The protocol is line-delimited JSON, documented with its schema (version 1) in the article "Inspecting a running
/// loop" (`MainlineLoop`).
public final class LoopInspector: Sendable {
    /// The path of the socket it serves on.
    public let socketPath: String
    /// The loop the inspector serves on (named `inspector`); ``stop()`` stops it. The package's tests count its
    /// libuv handles.
    package let loop: EventLoop
    private let server: _Server
    /// Whether ``stop()`` has run. Protected by its lock.
    private let stopped = _Locked(false)

    private init(socketPath: String, loop: EventLoop, server: _Server) {
        self.socketPath = socketPath
        self.loop = loop
        self.server = server
    }

    /// Starts serving the process's loops and objects on a Unix domain socket at `socketPath`.
    ///
    /// Thread-safe. Creates the socket with mode `0600` (a socket file left by a process that crashed is replaced),
    /// activates the registry of objects, and answers on an `EventLoop` of its own, named `inspector`, until
    /// ``stop()``.
    ///
    /// - Parameter socketPath: Where to create the socket: at most 107 bytes, in a folder the process can write.
    /// - Returns: The running inspector. Keep it: releasing it stops it, as ``stop()`` does.
    /// - Throws: ``LoopInspectorError``: ``LoopInspectorError/inUse(path:)`` when a server already answers at the
    ///   path, ``LoopInspectorError/notASocket(path:)`` when a file that is not a socket is there,
    ///   ``LoopInspectorError/pathTooLong(path:limit:)``, or ``LoopInspectorError/system(operation:path:errno:)``
    ///   naming the call that failed.
    public static func start(socketPath: String) throws(LoopInspectorError) -> LoopInspector {
        try start(socketPath: socketPath, registry: .shared, limits: _Limits())
    }

    /// ``start(socketPath:)`` with a registry and limits of the caller's: the package's tests serve a registry of
    /// their own, with small limits.
    ///
    /// - Parameters:
    ///   - socketPath: Where to create the socket.
    ///   - registry: What to serve; activated.
    ///   - limits: The clients, request size and timeouts to serve with.
    /// - Returns: The running inspector.
    /// - Throws: ``LoopInspectorError``, as ``start(socketPath:)``.
    package static func start(
        socketPath: String,
        registry: _InspectionRegistry,
        limits: _Limits
    ) throws(LoopInspectorError) -> LoopInspector {
        let listener = try _Listener(path: socketPath, backlog: Int32(limits.clients))
        let loop = EventLoop(name: "inspector", budgets: .default, resources: .inspector)
        let server = _Server(listener: listener, registry: registry, limits: limits, loop: loop)
        registry.activate()
        _ = loop.post({ server.begin() }, from: Self.site)
        return LoopInspector(socketPath: socketPath, loop: loop, server: server)
    }

    /// Stops serving: disconnects every client, removes the socket file and stops the inspector's loop.
    ///
    /// Thread-safe and idempotent. The first call returns once the loop's thread has ended and the socket file is
    /// gone (called from the inspector's own loop, it returns at once and the loop ends after); later calls return at
    /// once. Objects go on registering (see ``start(socketPath:)``), for a later inspector.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        // Posted before the stop: the loop runs what was posted before it stops.
        _ = loop.post({ [server] in server.end() }, from: Self.site)
        if loop.inEventLoop {
            loop.stop()
        } else {
            loop.stopAndWait()
        }
    }

    deinit {
        stop()
    }

    /// What the flight recorder and stall reports call the inspector's own jobs.
    private static let site = LoopSite(label: "inspector")
}
