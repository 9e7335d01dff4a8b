import MainlineLoop

/// Observes several events and calls one block when any of them fired, coalesced, and optionally debounced or
/// throttled on the loop's timers.
///
/// Must be used on the main actor.
///
/// ```swift
/// // One call per loop iteration in which any of the three fired:
/// let group = SimpleEventGroupObserver(events: profile.didChange, settings.didChange, session.didChange) { _ in
///     render()
/// }
///
/// // At most one save per 100 ms of quiet:
/// let autosave = SimpleEventGroupObserver(events: document.didChange, debounceTimeout: .milliseconds(100)) { _ in
///     save()
/// }
/// ```
///
/// With a timeout T, a trigger means (upstream MMMObservables' policies, on loop timers):
/// - **T ≤ 0**: one call in the settle phase of every loop iteration in which any source fired.
/// - ``DebouncePolicy/default`` (trailing debounce): every trigger restarts a T timer; the block runs when it
///   fires. Triggers at 0, 50 and 100 ms with T = 100 ms give one call at 200 ms.
/// - ``DebouncePolicy/debounceLeading``: a trigger while no timer runs calls the block now and starts a T timer;
///   a trigger while it runs is suppressed and restarts it. Triggers at 0, 50, 100 ms give one call at 0.
/// - ``DebouncePolicy/throttle``: the first trigger starts a T timer and the block runs when it fires; triggers
///   meanwhile are dropped; the pause ends once the block ran. Triggers at 0, 50, 200 ms give calls at 100 and
///   300 ms.
///
/// The block always runs in the loop's settle phase, one ``SimpleEventObservable/settleHeight`` above the highest
/// source, so synchronous and lazy sources fired in one iteration produce one call, after all of them.
/// ``remove()`` (also on deallocation) unsubscribes from the sources and stops the timer.
@MainActor
public final class SimpleEventGroupObserver {
    /// How triggers within the timeout are combined.
    public enum DebouncePolicy: Sendable, Hashable {
        /// Trailing debounce: each trigger restarts the timer; the block runs when it fires.
        case `default`
        /// The first trigger runs the block at once; triggers within the timeout after the latest are suppressed.
        case debounceLeading
        /// At most one call per timeout: the first trigger starts the timer, the block runs when it fires.
        case throttle
    }

    /// The events observed: all of them, passed to the block on each call; empty after ``remove()``.
    public private(set) var events: [SimpleEventObservable]

    private let block: @MainActor ([SimpleEventObservable]) -> Void
    private let debounceTimeout: Duration
    private let debouncePolicy: DebouncePolicy
    private let loop: any Loop
    private var coalescing: CoalescingCallback!
    private var timer: ScheduledTask?
    private var isThrottlePaused = false
    /// What the events hold (weakly) as their observer: the group itself is no `SimpleEventObserver`, so that
    /// receiving a notification is not part of its public surface. Held here, strongly, for the group's lifetime.
    private let relay = _Relay()

    /// Starts observing `events`.
    ///
    /// - Parameters:
    ///   - loop: The loop whose settle phase runs the block and whose timers debounce.
    ///   - events: The events to observe.
    ///   - debounceTimeout: T in the rules above; zero or less for no debouncing.
    ///   - debouncePolicy: How triggers within T are combined.
    ///   - block: What to run; it receives ``events``.
    public init(
        loop: any Loop = MainLoop.main,
        events: [SimpleEventObservable],
        debounceTimeout: Duration = .zero,
        debouncePolicy: DebouncePolicy = .default,
        block: @escaping @MainActor ([SimpleEventObservable]) -> Void
    ) {
        self.loop = loop
        self.events = events
        self.debounceTimeout = debounceTimeout
        self.debouncePolicy = debouncePolicy
        self.block = block
        let height = (events.map(\.settleHeight).max() ?? -1) + 1
        coalescing = CoalescingCallback(loop: loop, height: height) { [weak self] in self?.runBlock() }
        relay.group = self
        for event in events { event.addObserver(relay) }
    }

    /// Starts observing `events`, listed one by one; see the array form for the parameters.
    public convenience init(
        loop: any Loop = MainLoop.main,
        events: SimpleEventObservable...,
        debounceTimeout: Duration = .zero,
        debouncePolicy: DebouncePolicy = .default,
        block: @escaping @MainActor ([SimpleEventObservable]) -> Void
    ) {
        self.init(
            loop: loop,
            events: events,
            debounceTimeout: debounceTimeout,
            debouncePolicy: debouncePolicy,
            block: block
        )
    }

    /// Starts observing `events`, with the timeout in seconds (a `TimeInterval`, as upstream MMMObservables takes it).
    public convenience init(
        loop: any Loop = MainLoop.main,
        events: [SimpleEventObservable],
        debounceTimeout: Double,
        debouncePolicy: DebouncePolicy = .default,
        block: @escaping @MainActor ([SimpleEventObservable]) -> Void
    ) {
        self.init(
            loop: loop,
            events: events,
            debounceTimeout: .seconds(debounceTimeout),
            debouncePolicy: debouncePolicy,
            block: block
        )
    }

    /// Starts observing `events`, with the timeout in seconds (a `TimeInterval`, as upstream MMMObservables takes it).
    public convenience init(
        loop: any Loop = MainLoop.main,
        events: SimpleEventObservable...,
        debounceTimeout: Double,
        debouncePolicy: DebouncePolicy = .default,
        block: @escaping @MainActor ([SimpleEventObservable]) -> Void
    ) {
        self.init(
            loop: loop,
            events: events,
            debounceTimeout: .seconds(debounceTimeout),
            debouncePolicy: debouncePolicy,
            block: block
        )
    }

    isolated deinit {
        remove()
    }

    /// Stops observing: unsubscribes from every event and stops the timer. Idempotent; also runs on
    /// deallocation. A call already pending in the current settle phase still runs, with no events.
    public func remove() {
        resetTimer()
        for event in events { event.removeObserver(relay) }
        events = []
    }

    /// One of the events fired (through ``_Relay``): applies the timeout and policy.
    fileprivate func eventDidTrigger() {
        guard debounceTimeout > .zero else {
            coalescing.schedule()
            return
        }
        switch debouncePolicy {
        case .default:
            resetTimer()
            timer = loop.schedule(after: debounceTimeout) { [weak self] in self?.coalescing.schedule() }
        case .debounceLeading:
            if timer == nil {
                coalescing.schedule()
            } else {
                resetTimer()
            }
            timer = loop.schedule(after: debounceTimeout) { [weak self] in self?.timer = nil }
        case .throttle:
            guard !isThrottlePaused else { return }
            isThrottlePaused = true
            timer = loop.schedule(after: debounceTimeout) { [weak self] in self?.coalescing.schedule() }
        }
    }

    private func runBlock() {
        block(events)
        // The pause ends only once the block ran, as upstream.
        isThrottlePaused = false
    }

    private func resetTimer() {
        timer?.cancel()
        timer = nil
    }
}

extension SimpleEventGroupObserver {
    /// The delegate-style observer a group adds to its events, forwarding to the group. Must be used on the main actor.
    ///
    /// A separate object, so that `simpleEventDidTrigger(_:)` — called by the events, never by users — is not a public
    /// member of the group.
    @MainActor
    fileprivate final class _Relay: SimpleEventObserver {
        /// The group; weak, as the group holds the relay. Protected by the main actor.
        weak var group: SimpleEventGroupObserver?

        func simpleEventDidTrigger(_ event: SimpleEventObservable) {
            group?.eventDidTrigger()
        }
    }
}
