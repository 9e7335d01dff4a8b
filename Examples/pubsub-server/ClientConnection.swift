import Mainline
import NIOCore

/// One client's connection on the main loop: the lifecycle host of its ``ClientViewModel``.
///
/// The view model is resumed while the client's socket takes bytes and paused while it does not. "Takes bytes" is
/// measured, not guessed: bytes handed to SwiftNIO count as in flight until their write completes (they reached the
/// kernel). Past ``highWater`` bytes in flight the host disappears: the view model pauses, what is published for the
/// client waits in its mailbox, and the server stops reading the client's commands. Below ``lowWater`` it appears
/// again and the mailbox drains.
///
/// Lines sent while resumed are gathered and handed to SwiftNIO once per loop iteration, in the settle phase.
///
/// A client that completes no command line for the idle timeout and holds no subscription is told
/// `BYE idle for N s` and closed (``IdleTimer``); a subscriber is never idle, however long it stays silent.
///
/// In cluster mode its commands run one at a time through ``commands``; while too many wait, the server stops reading
/// the client as it does while the client is paused.
@MainActor
final class ClientConnection {
    static let highWater = 64 * 1_024
    static let lowWater = 16 * 1_024

    let channel: any Channel
    let viewModel: ClientViewModel
    /// The client's commands waiting for those before them (cluster mode only).
    private(set) var commands: CommandQueue!
    /// Whether ``commands`` holds so many that the client's socket must not be read.
    private var isBacklogged = false
    private var manager: LifecycleManager<ClientViewModel>?
    private var pending = ByteBuffer()
    private var inFlight = 0
    private var flusher: CoalescingCallback?
    private var closeWhenFlushed = false
    private var idleTimer: IdleTimer?
    private(set) var isClosed = false

    /// Binds a new client's view model to the connection and resumes it; the idle clock starts now.
    ///
    /// - Parameters:
    ///   - id: The client's number, for its view model.
    ///   - channel: The client's SwiftNIO channel.
    ///   - idleTimeout: How long the client may complete no command line while holding no subscription.
    init(id: Int, channel: any Channel, idleTimeout: Duration) {
        self.channel = channel
        self.viewModel = ClientViewModel(id: id)
        flusher = CoalescingCallback { [weak self] in self?.flush() }
        commands = CommandQueue { [weak self] backlogged in self?.backlogChanged(backlogged) }
        manager = LifecycleManager(viewModel: viewModel, host: self) { [weak self] viewModel in
            guard let self else { return [] }
            if !self.isBacklogged {
                channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
            }
            viewModel.sink = { [weak self] line in self?.enqueue(line) }
            return [
                Disposable { [weak self] in
                    MainActor.assumeIsolated {
                        self?.viewModel.sink = nil
                        self?.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
                    }
                }
            ]
        }
        manager?.hostDidAppear()
        idleTimer = IdleTimer(timeout: idleTimeout) { [weak self] in self?.idle() }
    }

    /// The client completed a command line (valid or not): it is not idle.
    func noteCommand() {
        idleTimer?.noteActivity()
    }

    /// Stops reading the client while its backlog of commands is long, and reads again (unless paused or closing)
    /// once it has shrunk.
    private func backlogChanged(_ backlogged: Bool) {
        isBacklogged = backlogged
        guard !isClosed, !closeWhenFlushed, backlogged || viewModel.sink != nil else { return }
        channel.setOption(ChannelOptions.autoRead, value: !backlogged).whenFailure { _ in }
    }

    /// The client has completed no command line for the idle timeout. A client that holds no subscription is told
    /// why and closed; one that is already closing and still has not taken what was queued for it (it stopped
    /// reading) is closed now.
    private func idle() {
        if closeWhenFlushed {
            closeNow()
        } else if viewModel.subscriptions.isEmpty {
            viewModel.reply("BYE idle for \(idleTimer?.timeout.components.seconds ?? 0) s")
            close()
        }
    }

    /// Sends what is queued, then closes: for `QUIT`, and for every client at shutdown. Stops reading the client.
    func close() {
        guard !closeWhenFlushed, !isClosed else { return }
        closeWhenFlushed = true
        channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
        // One last batch, paused or not: the latest message of each topic, and the replies.
        for (_, line) in viewModel.outgoing.takeAll() { enqueue(line) }
        flush()
        closeIfFlushed()
    }

    /// Closes now, whatever is still queued (the shutdown deadline passed).
    func closeNow() {
        guard !isClosed else { return }
        channel.close(promise: nil)
    }

    /// The client went away: clears the view model (its subscriptions end) and forgets the connection.
    func disconnected() {
        isClosed = true
        idleTimer?.cancel()
        idleTimer = nil
        flusher?.cancel()
        flusher = nil
        manager?.unbind()
        manager = nil
    }

    // MARK: Writing

    private func enqueue(_ line: String) {
        pending.writeString(line)
        pending.writeInteger(UInt8(ascii: "\n"))
        flusher?.schedule()
    }

    private func flush() {
        guard pending.readableBytes > 0, !isClosed else { return }
        let buffer = pending
        pending = ByteBuffer()
        let count = buffer.readableBytes
        inFlight += count
        channel.writeAndFlush(buffer).whenComplete { [weak self] _ in
            MainLoop.main.post { self?.written(count) }
        }
        if inFlight >= Self.highWater { manager?.hostDidDisappear() }
    }

    private func written(_ count: Int) {
        inFlight -= count
        if closeWhenFlushed {
            closeIfFlushed()
        } else if inFlight <= Self.lowWater {
            manager?.hostDidAppear()
        }
    }

    private func closeIfFlushed() {
        guard inFlight == 0, pending.readableBytes == 0, !isClosed else { return }
        channel.close(promise: nil)
    }
}
