import AsyncAlgorithms
import Benchmark
import Foundation
import MainlineEvents
import MainlineLoop

// Producers that wait (issue 15 item 4): 1 or 2 producer *tasks* send 100,000 values per iteration, losslessly and
// with backpressure, to a consumer on the main loop (the main actor, which in guest mode is the dispatch main queue
// the loop is pumped from). Three ways of doing that:
//
// - `BoundedMailbox(capacity: 1,024, overflow: .suspend)`: `try await send(v)`; the consumer is an observer of the
//   mailbox's event that `takeAll()`s.
// - swift-async-algorithms' `AsyncChannel<Int>`: `await send(v)` (a rendezvous: each send waits for the consumer);
//   the consumer is a main-actor task iterating the channel.
// - `AsyncStream<Int>` with `.bufferingOldest(1,024)`: the stream has no backpressure of its own — `yield` only
//   reports `.dropped` — so a fair peer needs producers that *wait* for room, not spin on `yield` (a spinning producer
//   would take a core from the consumer on this 2-core machine and measure the scheduler instead). The formulation
//   here: a FIFO semaphore of 1,024 permits (`RoomGate`, a lock and continuations, as the mailbox itself is built);
//   a producer takes a permit before it yields — waiting while all 1,024 are out — and the consumer, a main-actor task
//   iterating the stream, returns one per value. The stream therefore never drops (checked), and the buffer bound is
//   the same as the mailbox's.
//
// Each iteration ends with an end marker sent after every producer finished; the benchmark task awaits the consumer's
// receipt of it. The custom metric is the iteration's wall clock divided by the values sent: ns per value,
// aggregate; `mallocCountTotal` is per iteration (100,000 values). Target: the `.suspend` mailbox at least 2×
// AsyncChannel's throughput.

/// The values each iteration sends, shared by the producers.
private let valuesPerIteration = 100_000
/// The mailbox's capacity and the stream's buffer.
private let waitingCapacity = 1_024

/// One of the ways of sending values to the loop with producers that wait.
enum WaitingPeer: String, CaseIterable, Sendable {
    case mailbox = "BoundedMailbox 1,024 .suspend"
    case channel = "AsyncChannel"
    case stream = "AsyncStream bufferingOldest(1,024) + wait for room"
}

func registerWaitingProducersBenchmarks() {
    let nsPerValue = BenchmarkMetric.custom("ns per value", polarity: .prefersSmaller, useScalingFactor: false)
    for producers in [1, 2] {
        let label = producers == 1 ? "1 producer task" : "\(producers) producer tasks"
        for peer in WaitingPeer.allCases {
            Benchmark(
                "Waiting producers, \(label): \(peer.rawValue)",
                configuration: .init(
                    metrics: [.wallClock, nsPerValue, .mallocCountTotal],
                    timeUnits: .milliseconds,
                    warmupIterations: 1,
                    scalingFactor: .one,
                    // The channel and the stream take ~1 s an iteration: long enough for about ten samples each.
                    maxDuration: .seconds(10),
                    maxIterations: 30
                )
            ) { benchmark, workload in
                let perProducer = valuesPerIteration / producers
                let start = ContinuousClock.now
                try await workload.run(producers: producers, perProducer: perProducer)
                let elapsed = ContinuousClock.now - start
                let nanoseconds =
                    elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
                benchmark.measurement(nsPerValue, Int(nanoseconds) / (perProducer * producers))
            } setup: {
                await WaitingWorkload.make(peer)
            }
        }
    }
}

/// One peer of the waiting-producers group and its consumer on the main loop.
///
/// Created on the main actor; ``run(producers:perProducer:)`` is called by the benchmark task, one run at a time.
final class WaitingWorkload: Sendable {
    let peer: WaitingPeer
    private let mailbox: BoundedMailbox<Int>?
    private let channel: AsyncChannel<Int>?
    private let stream: (stream: AsyncStream<Int>, continuation: AsyncStream<Int>.Continuation)?
    private let gate: RoomGate?
    private let consumer = WaitingConsumer()
    /// The mailbox consumer's observer; kept on the main actor for the workload's life.
    @MainActor private static var tokens: [SimpleEventToken?] = []

    @MainActor
    static func make(_ peer: WaitingPeer) -> WaitingWorkload {
        let workload = WaitingWorkload(peer)
        workload.startConsumer()
        return workload
    }

    @MainActor
    private init(_ peer: WaitingPeer) {
        self.peer = peer
        mailbox = peer == .mailbox ? BoundedMailbox(capacity: waitingCapacity, overflow: .suspend) : nil
        channel = peer == .channel ? AsyncChannel() : nil
        stream =
            peer == .stream
            ? AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingOldest(waitingCapacity)) : nil
        gate = peer == .stream ? RoomGate(permits: waitingCapacity) : nil
    }

    @MainActor
    private func startConsumer() {
        let consumer = consumer
        if let mailbox {
            var token: SimpleEventToken?
            mailbox.event.addObserver(&token) { _ in
                for value in mailbox.takeAll() { consumer.receive(value) }
            }
            Self.tokens.append(token)
        } else if let channel {
            Task { @MainActor in
                for await value in channel { consumer.receive(value) }
            }
        } else if let stream, let gate {
            Task { @MainActor in
                for await value in stream.stream {
                    gate.release()
                    consumer.receive(value)
                }
            }
        }
    }

    /// Sends `perProducer` values from each of `producers` tasks, then the end marker, and returns once the consumer
    /// received it.
    func run(producers: Int, perProducer: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<producers {
                group.addTask { try await self.produce(perProducer) }
            }
            try await group.waitForAll()
        }
        try await send(WaitingConsumer.endMarker)
        await consumer.waitForEnd()
    }

    private func produce(_ count: Int) async throws {
        for value in 0..<count { try await send(value) }
    }

    private func send(_ value: Int) async throws {
        switch peer {
        case .mailbox:
            try await mailbox!.send(value)
        case .channel:
            await channel!.send(value)
        case .stream:
            await gate!.acquire()
            guard case .enqueued = stream!.continuation.yield(value) else {
                fatalError("AsyncStream peer: the stream dropped a value although the gate held it to its buffer")
            }
        }
    }
}

/// The consumer's side: counts values and hands the end marker to the run that waits for it.
///
/// All operations on `WaitingConsumer` are thread-safe: ``receive(_:)`` runs on the main actor, ``waitForEnd()`` on
/// the benchmark task; the lock orders them, whichever comes first.
final class WaitingConsumer: Sendable {
    static let endMarker = -1
    private let state = BenchLocked<(received: Int, ended: Bool, end: CheckedContinuation<Void, Never>?)>(
        (0, false, nil)
    )

    /// Returns once the end marker has arrived (since the last call).
    func waitForEnd() async {
        await withCheckedContinuation { (end: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state -> Bool in
                guard state.ended else {
                    state.end = end
                    return false
                }
                state.ended = false
                return true
            }
            if ended { end.resume() }
        }
    }

    @MainActor
    func receive(_ value: Int) {
        if value == Self.endMarker {
            let end = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let end = state.end else {
                    state.ended = true
                    return nil
                }
                state.end = nil
                return end
            }
            end?.resume()
        } else {
            state.withLock { $0.received &+= 1 }
        }
    }
}

/// A value behind an `NSLock`, for the benchmark's own bookkeeping (Mainline's `_Locked` is internal to its package).
///
/// All operations on `BenchLocked` are thread-safe.
final class BenchLocked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// A FIFO counting semaphore for tasks: the AsyncStream peer's "wait for room" (see the top of the file).
///
/// All operations on `RoomGate` are thread-safe.
final class RoomGate: Sendable {
    private let state: BenchLocked<(permits: Int, waiters: [CheckedContinuation<Void, Never>], head: Int)>

    init(permits: Int) {
        state = BenchLocked((permits, [], 0))
    }

    /// Takes a permit, waiting (first come, first served) while none is left.
    func acquire() async {
        let granted = state.withLock { state -> Bool in
            guard state.permits == 0 else {
                state.permits -= 1
                return true
            }
            return false
        }
        if granted { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.permits > 0 {
                    state.permits -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Returns a permit: to the oldest waiter, if any.
    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.head < state.waiters.count else {
                state.permits += 1
                return nil
            }
            let waiter = state.waiters[state.head]
            state.head += 1
            if state.head == state.waiters.count {
                state.waiters.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return waiter
        }
        waiter?.resume()
    }
}
