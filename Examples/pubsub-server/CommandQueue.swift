import Mainline

/// Runs one client's commands one at a time, in the order they arrived, when some of them wait: in cluster mode a
/// `PUB` waits for its commit and a topic's first `SUB` for the stream's position. A command that arrives meanwhile
/// runs after them, so a client's replies come in the order of its commands, and its `PUB`s of one topic commit (and
/// reach every subscriber) in the order it sent them.
///
/// Must be used on the main actor.
///
/// Bounded by the client's ``CommandBacklog``, which counts a command until it ran here: once
/// ``CommandBacklog/State/limit`` commands are on their way or waiting, the server stops reading the client.
@MainActor
final class CommandQueue {
    /// How many commands that ran the queue keeps before it forgets them (so that a client that never lets the queue
    /// empty holds only its backlog).
    private static let compaction = CommandBacklog.State.limit

    private var waiting: [@MainActor () async -> Void] = []
    /// The index of the next command in `waiting`.
    private var next = 0
    private var isRunning = false

    /// An empty queue.
    init() {}

    /// Runs `command` after every command queued before it.
    func perform(_ command: @escaping @MainActor () async -> Void) {
        waiting.append(command)
        guard !isRunning else { return }
        isRunning = true
        Task { await self.run() }
    }

    /// Runs the waiting commands in order until none is left; one run at a time (``isRunning``).
    private func run() async {
        while next < waiting.count {
            let command = waiting[next]
            next += 1
            if next >= Self.compaction {
                waiting.removeFirst(next)
                next = 0
            }
            await command()
        }
        waiting.removeAll(keepingCapacity: true)
        next = 0
        isRunning = false
    }
}
