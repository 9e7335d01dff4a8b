import MainlineLoop

/// The observers of an ``ObserverHub`` or a `SimpleEvent`-family event: an ``_ObserverList`` (which keeps the
/// round, ending and nesting rules) plus what only weak, delegate-style observers need — finding one by identity,
/// and upstream MMMObservables' misuse checks, each reported to `Diagnostics`.
///
/// Must be used on the main actor.
///
/// - A value type is never added (`observerIsValue`); an object added twice is called twice (`observerAddedTwice`);
///   removing one not added is ignored (`observerNotAdded`).
/// - An object deallocated without being removed (`observerNotRemoved`) is reported once and dropped: found by the
///   next round, and by an add or remove at the latest once the adds and removes since the last check reach half
///   the weak observers (so the check costs O(1) amortized; with one or two weak observers, the next add or remove).
/// - An observer removing itself from its own `deinit`, its weak reference already gone, is accepted silently.
///
/// - Complexity: adding, and removing a token or an object, are O(1) amortized (objects are found through a
///   dictionary by identity, not by searching the list).
@MainActor
final class _EventObservers {
    /// One observer: a token's block (held strongly), or an object held weakly.
    enum Observer {
        case block(SimpleEventObservable.ObserverBlock)
        case object(_WeakObserver)
    }

    typealias Entry = _ObserverList<Observer>.Entry

    let list: _ObserverList<Observer>
    /// What the list belongs to, for messages: "ObserverHub<Delegate>", "SimpleEvent".
    private let owner: String
    /// The entries of weak observers, by the identity their object had when added. Protected by the main actor.
    private var objects: [ObjectIdentifier: [Entry]] = [:]
    /// How many weak observers `objects` holds. Protected by the main actor.
    private var weakCount = 0
    /// Adds and removes of weak observers since dead ones were last looked for. Protected by the main actor.
    private var changesSinceDeadCheck = 0
    /// Weak observers looked at by the checks for dead ones: what a test reads to prove that adding and removing N
    /// observers costs O(N), without timing anything. Protected by the main actor.
    private(set) var deadCheckVisits = 0
    /// Who wants to know when the event goes (the async sequences' wake-ups): told once, by ``eventDidGo()``.
    /// Protected by the main actor.
    private let endObservers = _ObserverList<_Block<Void>>(nesting: .deferred)
    /// Whether the event that owns this list was freed. Protected by the main actor.
    private(set) var eventIsGone = false

    /// Creates an empty list whose nested rounds are reported, as in MMMObservables (a `LazySimpleEvent` never
    /// nests: a trigger during its delivery schedules another delivery).
    nonisolated init(owner: String) {
        self.owner = owner
        self.list = _ObserverList(nesting: .reported(owner: owner))
    }

    /// Whether no live observer is installed.
    var isEmpty: Bool {
        list.isEmpty
            || !list.entries.contains { entry in
                guard let entry, !entry.isEnded else { return false }
                if case .object(let box) = entry.observer { return box.object != nil }
                return true
            }
    }

    // MARK: Adding and removing

    /// Adds a token observer's block at the end; returns its entry, for ``remove(_:)``.
    func add(block: @escaping SimpleEventObservable.ObserverBlock) -> Entry {
        list.add(.block(block))
    }

    /// Removes the entry of a token observer. Idempotent.
    func remove(_ entry: Entry) {
        list.remove(entry)
    }

    /// Adds `observer` weakly at the end.
    func add(object observer: Any, as role: String) {
        checkForDeadObjectsIfDue()
        guard type(of: observer) is AnyClass else {
            Diagnostics.report(
                .observerIsValue,
                "\(owner): a value of type \(type(of: observer)) was added as \(role). Observers are held weakly, so they must be class instances; it was not added and will never be called."
            )
            return
        }
        let object = observer as AnyObject
        let id = ObjectIdentifier(object)
        if let same = objects[id] {
            // Same identity: the object itself (added twice), or a dead one whose address was reused.
            dropDead(same)
            if objects[id]?.isEmpty == false {
                Diagnostics.report(
                    .observerAddedTwice,
                    "\(owner): the same instance of \(type(of: object)) was added again as \(role). Perhaps it was not removed when it should have been? It will be called twice per notification."
                )
            }
        }
        let entry = list.add(.object(_WeakObserver(object)))
        objects[id, default: []].append(entry)
        weakCount += 1
    }

    /// Removes the weak observer `observer` (its first entry, when added twice).
    func remove(object observer: Any, as role: String) {
        // Dead observers are looked for after the removal: the observer may be removing itself from its `deinit`.
        defer { checkForDeadObjectsIfDue() }
        let object = observer as AnyObject
        let id = ObjectIdentifier(object)
        // Its live entry; else a dead one of the same identity: the observer is removing itself from its own
        // `deinit`, the weak reference already gone. Accepted.
        let entries = objects[id] ?? []
        guard
            let position = entries.firstIndex(where: { box($0).object === object })
                ?? entries.firstIndex(where: { box($0).object == nil })
        else {
            Diagnostics.report(
                .observerNotAdded,
                "\(owner): an instance of \(type(of: object)) was removed as \(role) but is not installed (never added, or removed already). Ignoring the call."
            )
            return
        }
        forget(entries[position], id: id)
    }

    // MARK: The end of the event

    /// Runs `body` once, on the main actor, when the event that owns this list is freed (at once if it already was);
    /// returns its entry, for ``removeEndObserver(_:)``.
    ///
    /// Tokens may outlive their event (they hold this list, not the event), so this is how an observer learns that no
    /// notification will ever come again.
    func addEndObserver(_ body: @escaping @MainActor () -> Void) -> _ObserverList<_Block<Void>>.Entry {
        let entry = endObservers.add(_Block { _ in body() })
        if eventIsGone { eventDidGo() }
        return entry
    }

    /// Removes an end observer. Idempotent.
    func removeEndObserver(_ entry: _ObserverList<_Block<Void>>.Entry) {
        endObservers.remove(entry)
    }

    /// The one place the list learns that its event is gone: called by the `isolated deinit` of every event that owns
    /// an `_EventObservers` (`SimpleEvent`, `LazySimpleEvent` and so `SimpleEventProxy`). Tells each end observer
    /// once and lets go of it.
    func eventDidGo() {
        eventIsGone = true
        guard !endObservers.isEmpty else { return }
        endObservers.notify((), next: { _ in nil }) { entry, _ in
            endObservers.remove(entry)
            entry.observer.body(())
        }
    }

    // MARK: Rounds

    /// Runs one round: `block` for token observers, `object` for live weak observers.
    @inline(__always)
    func forEach(
        block callBlock: (SimpleEventObservable.ObserverBlock) -> Void,
        object callObject: (AnyObject) -> Void
    ) {
        var sawDead = false
        list.forEach { observer in
            switch observer {
            case .block(let block):
                callBlock(block)
            case .object(let box):
                if let object = box.object { callObject(object) } else { sawDead = true }
            }
        }
        if sawDead { checkForDeadObjects() }
    }

    /// Runs one round telling every observer that `event` triggered: blocks get the event, delegate-style
    /// observers `simpleEventDidTrigger(event)`.
    @inline(__always)
    func notify(_ event: SimpleEventObservable) {
        // One closure, the event passed as the round's value, rather than `forEach`'s three nested ones: a round
        // builds the contexts of the closures its rare paths take on every trigger. The observer is handed to
        // `tell` as an argument, borrowed from its entry: matched in place, its block would be copied out (a retain
        // and a release per observer).
        var sawDead = false
        list.notify(event, next: { _ in nil }) { entry, event in Self.tell(entry.observer, event, &sawDead) }
        if sawDead { checkForDeadObjects() }
    }

    /// Tells one observer that `event` triggered; sets `sawDead` for a weak observer that is gone.
    @inline(__always)
    private static func tell(_ observer: Observer, _ event: SimpleEventObservable, _ sawDead: inout Bool) {
        switch observer {
        case .block(let block):
            block(event)
        case .object(let box):
            // `as!` cannot fail: events add only `SimpleEventObserver`s as objects.
            if let object = box.object {
                (object as! SimpleEventObserver).simpleEventDidTrigger(event)
            } else {
                sawDead = true
            }
        }
    }

    // MARK: Dead observers

    private func box(_ entry: Entry) -> _WeakObserver {
        guard case .object(let box) = entry.observer else { preconditionFailure("a token entry among objects") }
        return box
    }

    private func forget(_ entry: Entry, id: ObjectIdentifier) {
        list.remove(entry)
        objects[id]?.removeAll { $0 === entry }
        if objects[id]?.isEmpty == true { objects[id] = nil }
        weakCount -= 1
    }

    /// Looks for dead observers once the adds and removes since the last look reach half the weak observers.
    private func checkForDeadObjectsIfDue() {
        changesSinceDeadCheck += 1
        guard changesSinceDeadCheck * 2 >= weakCount else { return }
        checkForDeadObjects()
    }

    /// Reports and drops every weak observer deallocated without being removed.
    private func checkForDeadObjects() {
        changesSinceDeadCheck = 0
        deadCheckVisits += weakCount
        for entries in Array(objects.values) { dropDead(entries) }
    }

    private func dropDead(_ entries: [Entry]) {
        for entry in entries {
            let box = box(entry)
            guard box.object == nil else { continue }
            Diagnostics.report(
                .observerNotRemoved,
                "\(owner): an observer of type \(box.typeName) was deallocated without being removed first. Remove observers before they go (or use a token, which removes itself). Dropping the dead entry."
            )
            forget(entry, id: box.id)
        }
    }
}

/// A weak observer of a hub or event: the object, and what it was when added.
///
/// Must be used on the main actor.
final class _WeakObserver {
    /// The observer.
    weak var object: AnyObject?
    /// The identity `object` had when added; outlives `object`, so a dead entry can still be matched by the observer
    /// removing itself from its `deinit`.
    let id: ObjectIdentifier
    /// The observer's type, for the message when it is found dead.
    let typeName: String

    init(_ object: AnyObject) {
        self.object = object
        self.id = ObjectIdentifier(object)
        self.typeName = String(describing: type(of: object))
    }
}
