import Foundation
import MainlineTesting
import Testing

@testable import pubsub_server

/// pubsub-server's client connection on a `TestLoop`, with a socket whose writes reach the kernel only when the test
/// says so: what a client that stops reading costs, counted exactly in one loop iteration, and what becomes of it
/// when the loop refuses the report of a completed write.
@MainActor
@Suite("Example: pubsub-server's client connection")
struct PubSubServerConnectionTests {
    /// A socket that keeps what it is asked: writes wait until ``completeAll()`` (the kernel took them), and retries
    /// until the test runs them. Thread-safe (protected by `lock`).
    final class FakeSocket: ClientSocket, @unchecked Sendable {
        private let lock = NSLock()
        private var waiting: [@Sendable (Bool) -> Void] = []
        private var retries: [@Sendable () -> Void] = []
        private var lines: [String] = []
        private(set) var isReading: Bool? {
            get { lock.withLock { reading } }
            set { lock.withLock { reading = newValue } }
        }
        private var reading: Bool?

        /// Every line written so far, in order.
        var written: [String] { lock.withLock { lines } }
        /// The bytes written so far.
        var writtenBytes: Int { lock.withLock { lines.reduce(0) { $0 + $1.utf8.count + 1 } } }
        /// Retries asked for and not yet run.
        var retriesWaiting: Int { lock.withLock { retries.count } }

        func write(_ buffer: Bytes, completed: @escaping @Sendable (_ written: Bool) -> Void) {
            let text = String(buffer: buffer)
            lock.withLock {
                lines += text.split(separator: "\n").map(String.init)
                waiting.append(completed)
            }
        }

        func setReading(_ reading: Bool) { isReading = reading }

        func close() {}

        var retry: WriteLedger.Retry {
            { [self] _, attempt in lock.withLock { retries.append(attempt) } }
        }

        /// The kernel took every write handed over so far (or, with `written` false, they failed: the client went
        /// away): their completions run, here.
        func completeAll(written: Bool = true) {
            let completions = lock.withLock {
                defer { waiting = [] }
                return waiting
            }
            for completed in completions { completed(written) }
        }

        /// Runs the retries asked for so far.
        func runRetries() {
            let attempts = lock.withLock {
                defer { retries = [] }
                return retries
            }
            for attempt in attempts { attempt() }
        }
    }

    static let topics = (0..<10).map { "topic\($0)" }
    static let padding = String(repeating: "x", count: 960)

    /// Message `index` of 1 KB, on topic `index % 10`.
    static func message(_ index: Int) -> String {
        "MSG \(topics[index % 10]) #\(index) \(padding)"
    }

    /// The numbers of `lines` (`#12` of `MSG topic2 #12 xxx…`).
    static func numbers(_ lines: some Sequence<String>) -> Set<String> {
        Set(lines.map { String($0.split(separator: " ")[2]) })
    }

    /// Delivers messages `range` to `connection`, as a publisher's `PUB`s run in one post phase.
    static func deliver(_ range: Range<Int>, to connection: ClientConnection) {
        for index in range {
            connection.viewModel.deliver(message(index), key: .topic(topics[index % 10]))
        }
    }

    /// The issue-25 flood in one loop iteration: 1,024 messages of 1 KB (one iteration's budget of `PUB` posts) for a
    /// client that takes no byte. The connection pauses the client the moment its unsent bytes reach the mark; the
    /// rest waits in the mailbox, the latest per topic, and every other message counts as dropped.
    @Test func linesOfOneIterationPastTheMarkWaitInTheMailboxTheLatestPerTopic() {
        let loop = TestLoop()
        let socket = FakeSocket()
        let connection = ClientConnection(id: 1, socket: socket, idleTimeout: .seconds(300), loop: loop)
        let count = 1_024
        let lineBytes = Self.message(count - 1).utf8.count + 1
        #expect(loop.post { Self.deliver(0..<count, to: connection) })
        loop.runUntilIdle()

        // Handed over: the mark and at most the line that reached it, not the iteration's 1 MB.
        let handedOver = socket.writtenBytes
        #expect(handedOver >= ClientConnection.highWater)
        #expect(
            handedOver < ClientConnection.highWater + lineBytes,
            "\(socket.written.count) lines (\(handedOver) bytes) handed over for a client that takes nothing"
        )
        #expect(!connection.isTakingBytes)
        #expect(socket.isReading == false, "a paused client's commands are not read")
        let counts = connection.viewModel.outgoing.counts
        #expect(counts.pending == Self.topics.count, "\(counts)")
        #expect(counts.delivered == socket.written.count, "\(counts)")
        #expect(counts.delivered + counts.dropped + counts.pending == count, "\(counts)")

        // The kernel takes it all: the client resumes and gets the latest message of each topic.
        socket.completeAll()
        loop.runUntilIdle()
        #expect(connection.isTakingBytes)
        #expect(Self.numbers(socket.written.suffix(10)) == Set((count - 10..<count).map { "#\($0)" }))
        #expect(connection.viewModel.outgoing.counts.pending == 0)
        connection.disconnected()
        #expect(!loop.hasPendingWork)
    }

    /// With `LoopBudgets.maxPendingPosts` set, the loop may refuse the report of a completed write. A paused client
    /// whose report was refused must still resume once the loop has room: its in-flight bytes are recorded in the
    /// write ledger and the report is posted again.
    @Test func aPausedClientWhoseWriteCompletionTheFullLoopRefusedStillResumes() {
        let loop = TestLoop(budgets: .init(maxPendingPosts: 8))
        let socket = FakeSocket()
        let connection = ClientConnection(id: 1, socket: socket, idleTimeout: .seconds(300), loop: loop)
        #expect(loop.post { Self.deliver(0..<200, to: connection) })
        loop.runUntilIdle()
        #expect(!connection.isTakingBytes, "paused at the mark")

        // The loop is full when the kernel takes the bytes: the completion's report is refused.
        while loop.tryPost({}) == .accepted {}
        socket.completeAll()
        #expect(socket.retriesWaiting == 1, "a refused report must be posted again")
        loop.runUntilIdle()
        #expect(!connection.isTakingBytes, "the report was refused: nothing counted yet")

        // Room again: the retry is accepted, the bytes are counted, and the client resumes with the latest per topic.
        socket.runRetries()
        loop.runUntilIdle()
        #expect(connection.isTakingBytes, "a refused write completion stranded the client: \(connection.unsent) unsent")
        #expect(Self.numbers(socket.written.suffix(10)) == Set((190..<200).map { "#\($0)" }))
        socket.completeAll()
        loop.runUntilIdle()
        #expect(connection.unsent == 0)
        #expect(socket.retriesWaiting == 0)
        connection.disconnected()
        #expect(!loop.hasPendingWork)
    }
}
