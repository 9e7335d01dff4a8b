import Mainline
import NIOCore

/// One client's connection on the main loop: the lifecycle host of its ``ClientViewModel``.
///
/// Must be used on the main actor.
///
/// The view model is resumed while the client's socket takes bytes and paused while it does not. "Takes bytes" is
/// measured, not guessed: a line counts against ``highWater`` from the moment the view model hands it over
/// (``unsent``: lines gathered for the next write, plus bytes handed to SwiftNIO whose write has not completed, that
/// is, not yet reached the kernel). The moment that sum reaches ``highWater`` the host disappears: the view model
/// pauses, and every line published for the client after that waits in its mailbox, the latest per topic (the ones a
/// newer line replaces count as dropped); the server also stops reading the client's commands. Once writes have
/// completed down to ``lowWater`` the host appears again and the mailbox drains. So the server holds at most
/// ``highWater`` plus one line for a client that stops reading, plus one mailbox batch (a line per topic and the
/// replies) when the mark is reached while the batch of a resume goes out; the kernel's socket buffers hold the rest
/// of what such a client receives before the latest of each topic.
///
/// Lines sent while resumed are gathered and handed to SwiftNIO once per loop iteration, in the settle phase. Write
/// completions reach the connection through a ``WriteLedger``, which never loses one, even when the loop refuses a
/// post (`LoopBudgets.maxPendingPosts`).
///
/// A client that completes no command line for the idle timeout and holds no subscription is told
/// `BYE idle for N s` and closed (``IdleTimer``); a subscriber is never idle, however long it stays silent.
///
/// In cluster mode its commands run one at a time through ``commands``. Whether the client's socket is read is the
/// connection's say (``ClientSocket/setReading(_:)``: not while paused or closing) and its ``CommandBacklog``'s (not
/// while too many of its commands wait for the loop), both at once.
///
/// A queue group's `MSG` lines (``OutgoingKey/groupMessage(_:)``) are followed to the kernel: the connection counts
/// the bytes it gathered and the bytes the ``WriteLedger`` reports written, and tells the view model that such a line
/// was written once every byte up to its end was (``ClientViewModel/groupLineWritten(_:written:)``), or that it never
/// will be once a write failed. A client that holds group lines and takes none of its bytes for the bound
/// (`--slow-consumer-ms`) is a slow consumer (``slowConsumer``): its group lines not yet written are taken back for
/// the group's other clients, and it gets no group message until it has taken its bytes down to ``lowWater``.
@MainActor
final class ClientConnection {
    /// The bytes not yet written to the kernel (``unsent``) at which the client is paused.
    static let highWater = 64 * 1_024
    /// The bytes not yet written to the kernel at or below which a paused client is resumed.
    static let lowWater = 16 * 1_024

    /// The client's socket: its SwiftNIO channel, or a test's fake.
    let socket: any ClientSocket
    let viewModel: ClientViewModel
    /// Whether the client is a slow consumer of its queue groups, and when it keeps up again.
    let slowConsumer: SlowConsumerWatch
    /// The client's commands waiting for those before them (cluster mode only).
    let commands = CommandQueue()
    private var manager: LifecycleManager<ClientViewModel>?
    /// Lines gathered for the next write.
    private var pending = ByteBuffer()
    /// Bytes handed to SwiftNIO whose write has not been counted as completed.
    private var inFlight = 0
    /// Where the channel's event loop records completed writes; set once in `init`.
    private var ledger: WriteLedger!
    private var flusher: CoalescingCallback?
    private var closeWhenFlushed = false
    private var idleTimer: IdleTimer?
    private(set) var isClosed = false
    /// Bytes ever gathered for writing; a group line's receipt waits for ``written`` to reach its end here.
    private var gathered = 0
    /// Bytes ever written to the kernel, as the ledger reports them (failed writes excluded).
    private var written = 0
    /// Group lines gathered and not yet written, in order: where each ends in ``gathered``, and its key.
    private var receipts: [(end: Int, key: OutgoingKey)] = []
    /// Whether a write failed: the connection is broken, and nothing more reaches the client.
    private var writeFailed = false

    /// Binds a new client's view model to the connection and resumes it; the idle clock starts now.
    ///
    /// - Parameters:
    ///   - id: The client's number, for its view model.
    ///   - socket: The client's socket (``NIOClientSocket`` for its SwiftNIO channel).
    ///   - idleTimeout: How long the client may complete no command line while holding no subscription.
    ///   - slowConsumerBound: How long the client may hold unwritten queue group lines without taking any of its bytes
    ///     before they go to the group's other clients (``SlowConsumerWatch``).
    ///   - loop: The loop it lives on; the main loop unless a test passes a `TestLoop`.
    init(
        id: Int,
        socket: any ClientSocket,
        idleTimeout: Duration,
        slowConsumerBound: Duration = QueueGroup.defaultSlowConsumerBound,
        loop: any Loop = MainLoop.main
    ) {
        let viewModel = ClientViewModel(id: id, loop: loop)
        self.socket = socket
        self.viewModel = viewModel
        slowConsumer = SlowConsumerWatch(
            bound: slowConsumerBound,
            loop: loop,
            holdsGroupLines: { [weak viewModel] in viewModel?.holdsGroupMessages ?? false },
            onSlow: { [weak viewModel] in viewModel?.takeBackGroupMessages() }
        )
        ledger = WriteLedger(loop: loop, retry: socket.retry) { [weak self] in self?.writesCompleted() }
        flusher = CoalescingCallback(loop: loop) { [weak self] in self?.flush() }
        manager = LifecycleManager(viewModel: viewModel, host: self) { [weak self] viewModel in
            guard let self else { return [] }
            socket.setReading(true)
            viewModel.sink = { [weak self] key, line in self?.enqueue(line, key: key) }
            return [
                Disposable { [weak self] in
                    MainActor.assumeIsolated {
                        self?.viewModel.sink = nil
                        self?.socket.setReading(false)
                    }
                }
            ]
        }
        resume()
        idleTimer = IdleTimer(timeout: idleTimeout, loop: loop) { [weak self] in self?.idle() }
    }

    /// Bytes queued for the client that have not reached the kernel: lines gathered for the next write, and writes
    /// handed to SwiftNIO and not yet completed. What ``highWater`` and ``lowWater`` measure.
    var unsent: Int { pending.readableBytes + inFlight }

    /// Whether the view model is resumed: the client is taking bytes.
    var isTakingBytes: Bool { manager?.isHostVisible ?? false }

    /// Whether a queue group may hand the client a message: it is neither closing nor closed, no write of it failed,
    /// and it is not a slow consumer.
    var acceptsGroupMessages: Bool { !isClosed && !closeWhenFlushed && !writeFailed && !slowConsumer.isSlow }

    /// Queues a queue group's `MSG` line for the client alone (``ClientViewModel/deliverGroupMessage(_:written:)``),
    /// starting its slow consumer clock when it held no other unwritten group line.
    func deliverGroupMessage(_ line: String, written: @escaping (Bool) -> Void) {
        slowConsumer.handingOver(holdingOthers: viewModel.holdsGroupMessages)
        viewModel.deliverGroupMessage(line, written: written)
    }

    /// The client completed a command line (valid or not): it is not idle.
    func noteCommand() {
        idleTimer?.noteActivity()
    }

    /// The client has completed no command line for the idle timeout. A client that holds no subscription is told
    /// why and closed; one that is already closing and still has not taken what was queued for it (it stopped
    /// reading) is closed now.
    private func idle() {
        if closeWhenFlushed {
            closeNow()
        } else if !viewModel.isSubscribed {
            viewModel.reply("BYE idle for \(idleTimer?.timeout.components.seconds ?? 0) s")
            close()
        }
    }

    /// Sends what is queued, then closes: for `QUIT`, and for every client at shutdown. Stops reading the client.
    func close() {
        guard !closeWhenFlushed, !isClosed else { return }
        closeWhenFlushed = true
        socket.setReading(false)
        // One last batch, paused or not: the latest message of each topic, and the replies.
        for (key, line) in viewModel.takeOutgoing() { enqueue(line, key: key) }
        flush()
        closeIfFlushed()
    }

    /// Closes now, whatever is still queued (the shutdown deadline passed).
    func closeNow() {
        guard !isClosed else { return }
        socket.close()
    }

    /// The client went away: clears the view model (its subscriptions end) and forgets the connection.
    func disconnected() {
        isClosed = true
        idleTimer?.cancel()
        idleTimer = nil
        slowConsumer.cancel()
        flusher?.cancel()
        flusher = nil
        manager?.unbind()
        manager = nil
    }

    // MARK: Writing

    /// Resumes the view model, then sends what waited in its mailbox. The drain comes after the host is visible, so
    /// that a batch which reaches ``highWater`` pauses it again (``enqueue(_:)``), rather than during the resume.
    private func resume() {
        manager?.hostDidAppear()
        viewModel.drain()
    }

    /// Gathers `line` for the next write and pauses the view model the moment ``unsent`` reaches ``highWater``: what
    /// is published for the client after that waits in its mailbox, coalesced per topic, instead of here.
    ///
    /// Counting only bytes in flight when the write is made, as this once did, let every line of one loop iteration
    /// in: a publisher's 1,024 posts per iteration put 1 MB in flight, 16 times the mark, and a client that stopped
    /// reading got that many stale lines before the latest of each topic.
    ///
    /// A group line's end is noted, so that its group hears when its write completed (``writesCompleted()``).
    private func enqueue(_ line: String, key: OutgoingKey) {
        gathered += pending.writeString(line)
        gathered += pending.writeInteger(UInt8(ascii: "\n"))
        if case .groupMessage = key { receipts.append((gathered, key)) }
        flusher?.schedule()
        if unsent >= Self.highWater { manager?.hostDidDisappear() }
    }

    private func flush() {
        guard pending.readableBytes > 0, !isClosed else { return }
        let buffer = pending
        pending = ByteBuffer()
        let count = buffer.readableBytes
        inFlight += count
        // The completion is recorded where no refused post can lose it (see `WriteLedger`).
        let ledger = self.ledger!
        socket.write(buffer) { written in ledger.record(count, written: written) }
    }

    /// Writes completed (the ledger's report): counts them, tells the view model which group lines were written (or,
    /// once a write failed, that none still waiting will be), then closes a closing client that has taken everything,
    /// or resumes one that is down to ``lowWater``.
    private func writesCompleted() {
        let count: Int = ledger.take()
        inFlight -= count
        // A report may sum a write that succeeded and one that failed after it: then neither's lines count as written
        // (their groups hand them on, so a client may get one twice, never none).
        if writeFailed || ledger.hasFailed {
            writeFailed = true
            let unwritten = receipts
            receipts = []
            for receipt in unwritten { viewModel.groupLineWritten(receipt.key, written: false) }
        } else {
            written += count
            let done = receipts.prefix { $0.end <= written }
            receipts.removeFirst(done.count)
            for receipt in done { viewModel.groupLineWritten(receipt.key, written: true) }
        }
        if closeWhenFlushed {
            closeIfFlushed()
        } else if unsent <= Self.lowWater {
            resume()
        }
        slowConsumer.writesCompleted(unsent: unsent)
    }

    private func closeIfFlushed() {
        guard inFlight == 0, pending.readableBytes == 0, !isClosed else { return }
        socket.close()
    }
}
