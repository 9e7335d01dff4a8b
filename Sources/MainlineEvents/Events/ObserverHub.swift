import MainlineLoop

/// A list of observers held weakly, notified in the order they were added: the building block for your own
/// observable objects with delegate-style observer protocols.
///
/// Must be used on the main actor.
///
/// ```swift
/// @MainActor protocol DownloadObserver: AnyObject {
///     func downloadDidProgress(_ download: Download)
/// }
///
/// @MainActor final class Download {
///     private let observers = ObserverHub<DownloadObserver>()
///     func addObserver(_ observer: DownloadObserver) { observers.add(observer) }
///     func removeObserver(_ observer: DownloadObserver) { observers.remove(observer) }
///     private func progressed() { observers.forEach { $0.downloadDidProgress(self) } }
/// }
/// ```
///
/// Rules, as in upstream MMMObservables (and shared by every observable thing in Mainline: <doc:ObserverRules>):
/// - Observers are held **weakly** and must be class instances. Remove each one exactly once, before it goes.
/// - ``forEach(_:)`` visits the observers installed when it began: an observer removed during a round is not called
///   in that round; one added during a round is first called in the next.
///
/// Misuse is reported to `Diagnostics` (debug builds trap by default) and then handled as upstream's release
/// builds do: a value type is never added (kind `observerIsValue`); an observer added twice is called twice
/// (`observerAddedTwice`); removing one never added is ignored (`observerNotAdded`); an observer deallocated
/// without being removed is dropped at the hub's next round, or at an add or remove once those since the last look
/// reach half its observers — the next one with one or two observers (`observerNotRemoved`); a
/// `forEach` started inside another on the same hub runs depth-first (`nestedNotification`). An observer that
/// removes itself from its own `deinit`, when its weak reference is already gone, is accepted silently.
@MainActor
public final class ObserverHub<T> {
    private let list = _EventObservers(owner: "ObserverHub<\(T.self)>")

    /// Creates an empty hub. Callable from any thread; everything else is main-actor only.
    public nonisolated init() {}

    /// Whether no live observer is installed.
    public var isEmpty: Bool { list.isEmpty }

    /// Adds `observer` at the end of the list, weakly.
    ///
    /// - Parameter observer: A class instance conforming to `T`.
    /// - Complexity: O(1) amortized.
    public func add(_ observer: T) {
        list.add(object: observer, as: "an observer")
    }

    /// Removes `observer`. Call it exactly once per ``add(_:)``.
    ///
    /// - Parameter observer: An observer added earlier.
    /// - Complexity: O(1) amortized (the observer is found by identity, not by searching the list).
    public func remove(_ observer: T) {
        list.remove(object: observer, as: "an observer")
    }

    /// Calls `body` with every observer installed when the call began, in the order they were added, skipping
    /// those removed meanwhile.
    ///
    /// - Parameter body: What to tell each observer.
    /// - Complexity: O(n) in the observers added since the list was last compacted.
    public func forEach(_ body: (T) -> Void) {
        // `as!` cannot fail: only instances of `T` are ever added.
        list.forEach(block: { _ in }, object: { body($0 as! T) })
    }
}
