/// A handler for a POSIX signal, registered with ``Loop/onSignal(_:_:)``; cancel it to stop handling.
///
/// Must be used on the main actor.
///
/// While at least one registration for a signal is active, the loop catches that signal and runs the handlers
/// on the main actor, in registration order. When the last one is cancelled the signal's disposition goes
/// back to the default. Dropping a registration does not cancel it.
@MainActor
public final class SignalRegistration {
    /// The signal handled.
    public let signal: LoopSignal

    // Protected by the main actor.
    package var handler: (@MainActor (LoopSignal) -> Void)?
    package weak var registry: _SignalRegistry?

    package init(signal: LoopSignal, handler: @escaping @MainActor (LoopSignal) -> Void, registry: _SignalRegistry) {
        self.signal = signal
        self.handler = handler
        self.registry = registry
    }

    /// Whether the handler will still run when the signal arrives.
    public var isActive: Bool { handler != nil }

    /// Stops handling the signal through this registration. Idempotent; safe from inside the handler.
    public func cancel() {
        guard handler != nil else { return }
        handler = nil
        registry?.remove(self)
    }
}

/// The signal handlers of one loop.
///
/// Must be used on the main actor (protected by the loop).
@MainActor
package final class _SignalRegistry {
    private var handlers: [LoopSignal: [SignalRegistration]] = [:]

    /// Called with a signal and `true` when it gains its first handler, `false` when it loses its last.
    // nonisolated(unsafe): set once by the owning core's initializer, before the registry is shared.
    nonisolated(unsafe) var watchDidChange: (@MainActor (LoopSignal, Bool) -> Void)?

    nonisolated init() {}

    /// The signals that have handlers.
    var watchedSignals: [LoopSignal] { Array(handlers.keys) }

    package func add(_ signal: LoopSignal, _ handler: @escaping @MainActor (LoopSignal) -> Void) -> SignalRegistration {
        let registration = SignalRegistration(signal: signal, handler: handler, registry: self)
        let isFirst = handlers[signal] == nil
        handlers[signal, default: []].append(registration)
        if isFirst { watchDidChange?(signal, true) }
        return registration
    }

    package func remove(_ registration: SignalRegistration) {
        guard var list = handlers[registration.signal] else { return }
        list.removeAll { $0 === registration }
        if list.isEmpty {
            handlers[registration.signal] = nil
            watchDidChange?(registration.signal, false)
        } else {
            handlers[registration.signal] = list
        }
    }

    /// Runs the handlers of `signal` registered now, in registration order.
    func deliver(_ signal: LoopSignal) {
        for registration in handlers[signal] ?? [] {
            registration.handler?(signal)
        }
    }

    /// Cancels every registration (used at shutdown).
    package func removeAll() {
        let all = handlers.values.joined()
        for registration in all {
            registration.handler = nil
            registration.registry = nil
        }
        let signals = Array(handlers.keys)
        handlers = [:]
        for signal in signals { watchDidChange?(signal, false) }
    }
}
