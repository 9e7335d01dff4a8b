import Dispatch
import MainlineLoop
import MainlineObservables
import OpenCombine
import OpenCombineDispatch

/// One of the ways of handing values from another thread to an observer on the main loop that the subject-post
/// groups compare.
enum SubjectPostPeer: String, CaseIterable, Sendable {
    /// `InitializedSubject<Int>.post(_:)`, observed with `observe { … }`: each value hops to the loop in one
    /// `MainLoop.main.post`, is applied there (compared with the current one, stored) and notifies the observer.
    case subject = "Mainline InitializedSubject.post"
    /// OpenCombine `CurrentValueSubject<Int, Never>.send(_:)`, observed through
    /// `.receive(on: DispatchQueue.main.ocombine)` and `sink`: each value hops in one `DispatchQueue.main.async`.
    case openCombine = "OpenCombine CurrentValueSubject receive(on: main)"
    /// `MainLoop.main.post { receive(value) }` per value, no subject: the hop the Mainline subject makes, alone.
    case post = "MainLoop.main.post per value"
}

/// One subject (none for `post`) with one observer on the main loop that hands every value it sees to
/// ``subjectSink``.
///
/// Created with ``settled(_:)``; ``claimValues(_:)`` is called by the benchmark thread, ``produce(_:from:)`` by the
/// benchmark thread and its producers.
final class SubjectPostWorkload: @unchecked Sendable {
    // @unchecked Sendable: the subjects are written once, in `init`, and only used through thread-safe calls after
    // that (`InitializedSubject.post` is nonisolated; OpenCombine's `CurrentValueSubject.send` sends under the
    // subject's lock, but the type is not marked `Sendable`). `next` is protected by the benchmark thread: only
    // `claimValues(_:)` touches it, after `init` handed the workload over through `onMainLoop`'s semaphore.
    let peer: SubjectPostPeer
    private let subject: InitializedSubject<Int>?
    private let combineSubject: CurrentValueSubject<Int, Never>?
    private let observation: Disposable?
    private let cancellable: AnyCancellable?
    /// The first value of the next run. Every value posted is new, so conflation drops none of them.
    private var next = 1

    @MainActor
    init(peer: SubjectPostPeer) {
        self.peer = peer
        switch peer {
        case .subject:
            let subject = InitializedSubject(0)
            self.subject = subject
            observation = subject.observe { subjectSink.receive($0) }
            (combineSubject, cancellable) = (nil, nil)
        case .openCombine:
            let combineSubject = CurrentValueSubject<Int, Never>(0)
            self.combineSubject = combineSubject
            cancellable = Self.sinkOnMainQueue(combineSubject)
            (subject, observation) = (nil, nil)
        case .post:
            (subject, observation, combineSubject, cancellable) = (nil, nil, nil, nil)
        }
    }

    /// Creates the workload of `peer` on the main loop, then blocks until its observer has seen the subject's initial
    /// value, which OpenCombine delivers later, through the main queue: from then on the observer sees only the
    /// values the runs post. Must not be called on the main actor (it would wait for itself).
    static func settled(_ peer: SubjectPostPeer) -> SubjectPostWorkload {
        let workload = onMainLoop { SubjectPostWorkload(peer: peer) }
        let drained = DispatchSemaphore(value: 0)
        // The main queue is FIFO: the initial value, queued while `init` ran, is delivered before this runs.
        DispatchQueue.main.async { drained.signal() }
        drained.wait()
        return workload
    }

    /// Reserves `count` values for a run and returns the first; the run posts `first ..< first + count`.
    func claimValues(_ count: Int) -> Int {
        let first = next
        next += count
        return first
    }

    /// One producer's share of a run: posts the values `first ..< first + count`, in increasing order. Thread-safe.
    func produce(_ count: Int, from first: Int) {
        switch peer {
        case .subject:
            let subject = subject!
            for value in first..<first + count { subject.post(value) }
        case .openCombine:
            let combineSubject = combineSubject!
            for value in first..<first + count { combineSubject.send(value) }
        case .post:
            for value in first..<first + count { MainLoop.main.post { subjectSink.receive(value) } }
        }
    }

    // Built outside the main actor, so that the closure OpenCombine holds is a plain nonisolated closure, as in
    // `FanOutWorkload`.
    private static func sinkOnMainQueue(_ subject: CurrentValueSubject<Int, Never>) -> AnyCancellable {
        subject.receive(on: DispatchQueue.main.ocombine).sink { subjectSink.receive($0) }
    }
}

/// The observer's side of the subject-post groups: wakes the benchmark thread when the observer on the main loop has
/// seen the last value of a run, and keeps the last value it saw.
///
/// `SubjectSink` is **not** thread-safe by itself; it follows a fixed protocol, like ``Countdown``: the benchmark
/// thread calls ``arm(_:)`` before a run's first value is posted; then only the main actor (the observer) calls
/// ``receive(_:)``; the benchmark thread calls ``wait(for:)``, and reads ``last`` after it returned. The initial value
/// an observer gets when it subscribes arrives before the first `arm` (see ``SubjectPostWorkload/settled(_:)``) and
/// counts for nothing.
final class SubjectSink: @unchecked Sendable {
    // @unchecked Sendable: `remaining` and `last` follow the protocol above; posting orders `arm` before the
    // observer's first `receive`, and the semaphore orders the last `receive` before `wait` returns.
    private var remaining = 0
    private let done = DispatchSemaphore(value: 0)

    /// The last value the observer saw.
    private(set) var last = 0

    /// Expects `count` values.
    func arm(_ count: Int) {
        precondition(count > 0, "SubjectSink.arm needs at least one value")
        remaining = count
    }

    /// The observer saw `value`; the last one of a run wakes the benchmark thread.
    @inline(never)
    func receive(_ value: Int) {
        last = value
        remaining -= 1
        if remaining == 0 { done.signal() }
    }

    /// Blocks until the observer has seen every armed value. A run that loses values would otherwise hang: after a
    /// minute this stops the benchmark instead, naming the run.
    func wait(for run: @autoclosure () -> String) {
        if done.wait(timeout: .now() + .seconds(60)) == .timedOut {
            preconditionFailure(
                "\(run()): the observer did not see every value posted within a minute; values were lost (conflated?) or the loop stopped"
            )
        }
    }
}

/// What the observers of the subject-post groups hand their values to. A global `let`, so that the `post` peer's
/// closures capture the value only (the subject's own hop captures the value and the subject, weakly).
let subjectSink = SubjectSink()
