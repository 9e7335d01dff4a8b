import MainlineLoop

/// One observer of an ``_ObserverList``: a block held strongly (a token's), or an object held weakly.
///
/// Must be used on the main actor.
///
/// Its mutable state skips dynamic exclusivity checks, as ``_ObserverList``'s does, for the same reason: a round
/// reads `isRemoved` and `block` of every entry it visits.
@MainActor
final class _ObserverEntry {
    /// The block of a token observer; `nil` for object observers. Immutable, so a round can call it without copying
    /// it out of the entry; it is released with the entry, which its list and token drop once it is removed.
    let block: SimpleEventObservable.ObserverBlock
    /// Whether this is a token observer (`block` is its block) rather than an object observer (`block` does nothing).
    let isToken: Bool
    /// The object of a weak observer.
    weak var object: AnyObject?
    /// The identity `object` had when added; `nil` for block observers. Outlives `object`, so a dead entry can
    /// still be matched by the observer removing itself from its `deinit`.
    let objectID: ObjectIdentifier?
    /// The observer's type, for the message when it is found dead.
    let typeName: String
    /// Set when the entry leaves the list; a running round skips it from then on.
    @exclusivity(unchecked) var isRemoved = false

    init(block: @escaping SimpleEventObservable.ObserverBlock) {
        self.block = block
        self.isToken = true
        self.objectID = nil
        self.typeName = "token"
    }

    init(object: AnyObject) {
        self.block = { _ in }
        self.isToken = false
        self.object = object
        self.objectID = ObjectIdentifier(object)
        self.typeName = String(describing: type(of: object))
    }

    /// A weak observer that was deallocated without being removed.
    var isDead: Bool { objectID != nil && !isRemoved && object == nil }
}

/// The observer list behind ``ObserverHub`` and the `SimpleEvent` family: insertion order, rounds over the
/// observers installed when they began, and every misuse case reported to `Diagnostics` with upstream MMMObservables' release behaviour.
///
/// Must be used on the main actor.
///
/// Rules (spec/events.md, "ObserverHub"):
/// - A round visits the entries that existed when it began: an observer removed during the round is not called
///   in it (its entry is marked removed, and the list is compacted when the outermost round ends); one added during
///   the round is appended after the round's end and first called in the next.
/// - A nested round (an observer starts another round on the same list) is reported, then runs depth-first.
/// - Dead weak entries are reported once and dropped at the next add, remove or round.
@MainActor
final class _ObserverList {
    // Unchecked exclusivity: the list is confined to the main actor and no access to these properties spans a call
    // out (rounds index into `entries` afresh for every entry). The dynamic check was a fifth of a one-observer
    // notification's cost.
    @exclusivity(unchecked) private var entries: [_ObserverEntry] = []
    /// How many rounds are running on this list (more than one only when misused).
    @exclusivity(unchecked) private var depth = 0
    /// Set when entries were retired during a round: they are removed from `entries` when the outermost round ends,
    /// so that indices stay put while a round walks them.
    @exclusivity(unchecked) private var needsCompaction = false
    /// What the list belongs to, for messages: "ObserverHub<Delegate>", "SimpleEvent".
    private let owner: String

    nonisolated init(owner: String) {
        self.owner = owner
    }

    /// Whether no live observer is installed.
    var isEmpty: Bool { !entries.contains { !$0.isRemoved && ($0.isToken || $0.object != nil) } }

    // MARK: Adding and removing

    /// Adds a token observer's block at the end. Returns its entry, for ``remove(_:)``.
    func add(block: @escaping SimpleEventObservable.ObserverBlock) -> _ObserverEntry {
        dropDeadEntries()
        let entry = _ObserverEntry(block: block)
        entries.append(entry)
        return entry
    }

    /// Adds `observer` weakly at the end.
    func add(object observer: Any, as role: String) {
        dropDeadEntries()
        guard type(of: observer) is AnyClass else {
            Diagnostics.report(
                .observerIsValue,
                "\(owner): a value of type \(type(of: observer)) was added as \(role). Observers are held weakly, so they must be class instances; it was not added and will never be called."
            )
            return
        }
        let object = observer as AnyObject
        if entries.contains(where: { !$0.isRemoved && $0.object === object }) {
            Diagnostics.report(
                .observerAddedTwice,
                "\(owner): the same instance of \(type(of: object)) was added again as \(role). Perhaps it was not removed when it should have been? It will be called twice per notification."
            )
        }
        entries.append(_ObserverEntry(object: object))
    }

    /// Removes the entry of a token observer. Idempotent.
    func remove(_ entry: _ObserverEntry) {
        guard !entry.isRemoved else { return }
        if let index = entries.firstIndex(where: { $0 === entry }) { retire(at: index) }
        dropDeadEntries()
    }

    /// Removes the weak observer `observer` (its first entry, when added twice).
    func remove(object observer: Any, as role: String) {
        let object = observer as AnyObject
        if let index = entries.firstIndex(where: { !$0.isRemoved && $0.object === object }) {
            retire(at: index)
        } else if let index = entries.firstIndex(where: { $0.isDead && $0.objectID == ObjectIdentifier(object) }) {
            // The observer is removing itself from its own `deinit`: the weak reference is already gone. Accepted.
            retire(at: index)
        } else {
            Diagnostics.report(
                .observerNotAdded,
                "\(owner): an instance of \(type(of: object)) was removed as \(role) but is not installed (never added, or removed already). Ignoring the call."
            )
        }
        dropDeadEntries()
    }

    // MARK: Rounds

    /// Runs one round over the observers installed now, in insertion order: `block` for token observers,
    /// `object` for live weak observers. Entries removed during the round are skipped.
    @inline(__always)
    func forEach(
        block callBlock: (SimpleEventObservable.ObserverBlock) -> Void,
        object callObject: (AnyObject) -> Void
    ) {
        if depth > 0 {
            Diagnostics.report(
                .nestedNotification,
                "\(owner): a notification round started while another was running on it (an observer triggered what it observes). Observers later in the outer round will see the inner notification first. Use a LazySimpleEvent, or coalescingNotifications {}, to avoid nesting."
            )
        }
        depth += 1
        // Entries are only appended during a round (removals are deferred, see `retire(at:)`), so indices below `end`
        // stay valid. Indexing `entries` afresh costs fewer retains than iterating a copy of it.
        let end = entries.count
        var index = 0
        var sawDead = false
        while index < end {
            let entry = entries[index]
            index += 1
            if entry.isRemoved { continue }
            if entry.isToken {
                callBlock(entry.block)
            } else if let object = entry.object {
                callObject(object)
            } else {
                sawDead = true
            }
        }
        depth -= 1
        if sawDead { dropDeadEntries() }
        if needsCompaction { compactIfIdle() }
    }

    /// Runs one round telling every observer that `event` triggered: blocks get the event, delegate-style
    /// observers `simpleEventDidTrigger(event)`.
    func notify(_ event: SimpleEventObservable) {
        // `as!` cannot fail: events add only `SimpleEventObserver`s as objects.
        forEach(block: { $0(event) }, object: { ($0 as! SimpleEventObserver).simpleEventDidTrigger(event) })
    }

    /// Reports and drops observers that were deallocated without being removed.
    private func dropDeadEntries() {
        guard entries.contains(where: \.isDead) else { return }
        for entry in entries where entry.isDead {
            Diagnostics.report(
                .observerNotRemoved,
                "\(owner): an observer of type \(entry.typeName) was deallocated without being removed first. Remove observers before they go (or use a token, which removes itself). Dropping the dead entry."
            )
            entry.isRemoved = true
            needsCompaction = true
        }
        compactIfIdle()
    }

    /// Marks the entry at `index` removed (a running round skips it from now on) and removes it from the list, at
    /// once outside a round, when the outermost round ends otherwise.
    private func retire(at index: Int) {
        let entry = entries[index]
        entry.isRemoved = true
        entry.object = nil
        if depth == 0 {
            entries.remove(at: index)
        } else {
            needsCompaction = true
        }
    }

    private func compactIfIdle() {
        guard depth == 0 && needsCompaction else { return }
        needsCompaction = false
        entries.removeAll { $0.isRemoved }
    }
}
