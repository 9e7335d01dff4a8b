import Mainline

/// Runs one client's commands one at a time, in the order they arrived, when some of them wait: in cluster mode a
/// `PUB` waits for its commit and a topic's first `SUB` for the stream's position. A command that arrives meanwhile
/// runs after them, so a client's replies come in the order of its commands, and its `PUB`s of one topic commit (and
/// reach every subscriber) in the order it sent them.
///
/// Must be used on the main actor.
///
/// Bounded: once ``backlogLimit`` commands wait, it asks its owner to stop reading the client (`onBacklog(true)`),
/// and to read again when a quarter of that is left (`onBacklog(false)`).
@MainActor
final class CommandQueue {
    /// How many commands may wait before the client's socket is no longer read.
    static let backlogLimit = 256

    private var waiting: [@MainActor () async -> Void] = []
    /// The index of the next command in `waiting`.
    private var next = 0
    private var isRunning = false
    private var isHeld = false
    private let onBacklog: @MainActor (Bool) -> Void

    /// An empty queue.
    ///
    /// - Parameter onBacklog: Called with `true` when the backlog reaches ``backlogLimit``, and with `false` when it
    ///   has shrunk again.
    init(onBacklog: @escaping @MainActor (Bool) -> Void) {
        self.onBacklog = onBacklog
    }

    /// Runs `command` after every command queued before it.
    func perform(_ command: @escaping @MainActor () async -> Void) {
        waiting.append(command)
        if !isHeld, waiting.count - next >= Self.backlogLimit {
            isHeld = true
            onBacklog(true)
        }
        guard !isRunning else { return }
        isRunning = true
        Task { await self.run() }
    }

    /// Runs the waiting commands in order until none is left; one run at a time (``isRunning``).
    private func run() async {
        while next < waiting.count {
            let command = waiting[next]
            next += 1
            if next >= Self.backlogLimit {
                // Forget the commands that ran, so a client that never lets the queue empty holds only its backlog.
                waiting.removeFirst(next)
                next = 0
            }
            await command()
            if isHeld, waiting.count - next <= Self.backlogLimit / 4 {
                isHeld = false
                onBacklog(false)
            }
        }
        waiting.removeAll(keepingCapacity: true)
        next = 0
        isRunning = false
    }
}
