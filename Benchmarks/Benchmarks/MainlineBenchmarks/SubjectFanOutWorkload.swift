import Dispatch
import MainlineObservables
import OpenCombine

/// One of the three ways of handing a new value to several observers, synchronously, that the subject fan-out group
/// compares.
enum SubjectFanOutPeer: String, CaseIterable, Sendable {
    /// `InitializedSubject<Int>.value = v`, observers added with `observe { _ in … }`.
    case subject = "Mainline InitializedSubject"
    /// `CurrentValueSubject<Int, Never>.send(v)`, observers attached with `sink(receiveValue:)`.
    case openCombine = "OpenCombine CurrentValueSubject"
    /// A Swift array of `(Int) -> Void`, called in order with the value: the floor any observer mechanism is measured
    /// against.
    case closures = "closures in an array"
}

/// One subject with `observerCount` observers, for one peer, set 1,000,000 observer calls' worth of times per run.
///
/// Every value set is new (one more than the last), so that conflation drops none of them. Every observer does what
/// the event fan-out's do: one increment of a ``HitCounter``.
///
/// Must be used on the main actor: created and run in ``onMainLoop(_:)`` bodies.
@MainActor
final class SubjectFanOutWorkload {
    /// Observer calls per run: `observerCount` observers × `callsPerRun / observerCount` values.
    nonisolated static let callsPerRun = 1_000_000

    let peer: SubjectFanOutPeer
    let observerCount: Int
    private let hits = HitCounter()
    /// The next value to set; the subjects start at 0.
    private var next = 1

    // Each peer's state; only the one of `peer` is filled.
    private let subject = InitializedSubject(0)
    private var observations: [Disposable] = []
    private let combineSubject = CurrentValueSubject<Int, Never>(0)
    private var cancellables: [AnyCancellable] = []
    private var closures: [(Int) -> Void] = []

    init(peer: SubjectFanOutPeer, observerCount: Int) {
        precondition(Self.callsPerRun % observerCount == 0, "fan-out: \(observerCount) must divide callsPerRun")
        self.peer = peer
        self.observerCount = observerCount
        let hits = hits
        for _ in 0..<observerCount {
            switch peer {
            case .subject:
                observations.append(subject.observe { _ in hits.count &+= 1 })
            case .openCombine:
                cancellables.append(Self.sink(combineSubject, hits))
            case .closures:
                closures.append(Self.closure(hits))
            }
        }
    }

    /// Sets `callsPerRun / observerCount` new values, so that the observers are called 1,000,000 times in all.
    /// Returns the time it took, in nanoseconds.
    func run() -> UInt64 {
        let values = next..<next + Self.callsPerRun / observerCount
        next = values.upperBound
        let before = hits.count
        // Locals, so that the loops read no class properties (no exclusivity checks that only one peer would pay).
        let subject = subject
        let combineSubject = combineSubject
        let closures = closures
        let start = DispatchTime.now().uptimeNanoseconds
        switch peer {
        case .subject:
            for value in values { subject.value = value }
        case .openCombine:
            for value in values { combineSubject.send(value) }
        case .closures:
            for value in values {
                for closure in closures { closure(value) }
            }
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        precondition(
            hits.count &- before == Self.callsPerRun,
            "subject fan-out (\(peer.rawValue), \(observerCount) observers): \(hits.count &- before) observer calls, expected \(Self.callsPerRun)"
        )
        return elapsed
    }

    // Built outside the main actor, so that the closures OpenCombine and the array hold are plain nonisolated
    // closures, as in `FanOutWorkload`. (The subject's observers are `@MainActor` closures by its API's type; calling
    // them from the main actor checks nothing at run time either.)

    private nonisolated static func sink(
        _ subject: CurrentValueSubject<Int, Never>,
        _ hits: HitCounter
    ) -> AnyCancellable {
        subject.sink { _ in hits.count &+= 1 }
    }

    private nonisolated static func closure(_ hits: HitCounter) -> (Int) -> Void {
        { _ in hits.count &+= 1 }
    }
}
