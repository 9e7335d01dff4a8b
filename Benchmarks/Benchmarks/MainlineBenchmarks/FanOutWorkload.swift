import Dispatch
import MainlineEvents
import OpenCombine

/// One of the three ways of telling several observers "it happened", synchronously, that the fan-out group compares.
enum FanOutPeer: String, CaseIterable, Sendable {
    /// `SimpleEvent.trigger()`, observers added with `addObserver(&token) { _ in … }`.
    case simpleEvent = "Mainline SimpleEvent"
    /// `PassthroughSubject<Void, Never>.send(())`, observers attached with `sink(receiveValue:)`.
    case openCombine = "OpenCombine PassthroughSubject"
    /// A Swift array of `() -> Void`, called in order: the floor any observer mechanism is measured against.
    case closures = "closures in an array"
}

/// What every observer of every peer does: one increment of a counter in a class, so that the call cannot be
/// optimised away and the work is the same for all three.
///
/// Must be used on the main actor (protected by the fan-out workload that owns it).
final class HitCounter {
    var count = 0
}

/// One event with `observerCount` observers, for one peer, fanned out 1,000,000 observer calls' worth per run.
///
/// Must be used on the main actor: created and run in ``onMainLoop(_:)`` bodies.
@MainActor
final class FanOutWorkload {
    /// Observer calls per run: `observerCount` observers × `callsPerRun / observerCount` triggers.
    nonisolated static let callsPerRun = 1_000_000

    let peer: FanOutPeer
    let observerCount: Int
    private let hits = HitCounter()

    // Each peer's state; only the one of `peer` is filled.
    private let event = SimpleEvent()
    private var tokens: [SimpleEventToken?] = []
    private let subject = PassthroughSubject<Void, Never>()
    private var cancellables: [AnyCancellable] = []
    private var closures: [() -> Void] = []

    init(peer: FanOutPeer, observerCount: Int) {
        precondition(Self.callsPerRun % observerCount == 0, "fan-out: \(observerCount) must divide callsPerRun")
        self.peer = peer
        self.observerCount = observerCount
        let hits = hits
        for _ in 0..<observerCount {
            switch peer {
            case .simpleEvent:
                var token: SimpleEventToken?
                event.addObserver(&token) { _ in hits.count &+= 1 }
                tokens.append(token)
            case .openCombine:
                cancellables.append(Self.sink(subject, hits))
            case .closures:
                closures.append(Self.closure(hits))
            }
        }
    }

    /// Triggers the event `callsPerRun / observerCount` times, so that the observers are called 1,000,000 times in
    /// all. Returns the time the triggers took, in nanoseconds.
    func run() -> UInt64 {
        let triggers = Self.callsPerRun / observerCount
        let before = hits.count
        // Locals, so that the loops read no class properties (no exclusivity checks that only one peer would pay).
        let event = event
        let subject = subject
        let closures = closures
        let start = DispatchTime.now().uptimeNanoseconds
        switch peer {
        case .simpleEvent:
            for _ in 0..<triggers { event.trigger() }
        case .openCombine:
            for _ in 0..<triggers { subject.send(()) }
        case .closures:
            for _ in 0..<triggers {
                for closure in closures { closure() }
            }
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        precondition(
            hits.count &- before == Self.callsPerRun,
            "fan-out (\(peer.rawValue), \(observerCount) observers): \(hits.count &- before) observer calls, expected \(Self.callsPerRun)"
        )
        return elapsed
    }

    // Built outside the main actor, so that the closures OpenCombine and the array hold are plain nonisolated
    // closures, exactly like the observer body the `SimpleEvent` peer runs (no isolation check in either).

    private nonisolated static func sink(
        _ subject: PassthroughSubject<Void, Never>,
        _ hits: HitCounter
    ) -> AnyCancellable {
        subject.sink { _ in hits.count &+= 1 }
    }

    private nonisolated static func closure(_ hits: HitCounter) -> () -> Void {
        { hits.count &+= 1 }
    }
}
