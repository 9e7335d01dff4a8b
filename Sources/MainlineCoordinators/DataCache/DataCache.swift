import MainlineEvents
import MainlineLoop
import MainlineObservables

/// State that more than one part of a program uses — or that comes from a remote service — held in one value type,
/// observable on the loop and changed only through its `update` and `populate` methods: FuturedKit's `DataCache`.
///
/// Must be used on the main actor, except ``loop``, the `post` methods and iterating ``values(skipInitial:)``, which
/// any thread may do.
///
/// A program usually keeps one cache for the whole application, and a coordinator may keep a private one. The
/// `Model` is a value type; views of it (view models, a terminal screen, a client connection) observe it, and
/// services write to it:
///
/// ```swift
/// struct Library: Equatable, Sendable {
///     var user: String?
///     var books: [Book] = []
/// }
///
/// let cache = DataCache(value: Library())
/// let observation = cache.observe { print($0.books.count) }   // prints 0
/// cache.update(\.user, with: "ada")                            // prints 0 (the model changed)
/// cache.populate(\.books, with: firstPage)                     // prints 20
/// cache.populate(\.books, with: firstPage)                     // silent: nothing changed
///
/// // From a worker thread, e.g. an HTTP client's callback:
/// cache.post(populating: \.books, with: secondPage)           // applied on the loop, soon
/// ```
///
/// Guarantees:
/// - A write that leaves the model equal to what it was stores nothing and notifies no one.
/// - Observers (``observe(_:)``, ``observable``) are called at once with the current value, then on every change,
///   on the main actor, in the order they registered.
/// - Changes posted from one thread are applied on the loop in the order they were posted, each exactly once.
///
/// - Note: In FuturedKit the cache is an actor, so its callers write `await cache.update(with:)`. Here it lives on
///   the main actor, which is the main loop: that line still compiles from any task and hops to the loop, and code
///   already on the main actor calls it without `await`. Threads outside Swift concurrency use the `post` methods.
@MainActor
public final class DataCache<Model: Equatable & Sendable> {
    /// Holds the model and its observers. Main-actor state.
    @usableFromInline let subject: InitializedSubject<Model>
    /// Ends the sequences handed out by ``values(skipInitial:)`` when the cache is released. Thread-safe.
    let sequences = _WakeupsOwner()

    /// Creates a cache holding `value`.
    ///
    /// Callable on the main actor.
    ///
    /// - Parameters:
    ///   - value: The first value of the model.
    ///   - loop: The loop observers are called on and posts are applied on; the main loop unless a test passes a
    ///     `TestLoop`.
    public init(value: Model, loop: any Loop = MainLoop.main) {
        subject = InitializedSubject(value, loop: loop)
    }

    deinit {
        sequences.endAll()
    }

    /// The loop observers are called on and posts are applied on. Thread-safe.
    public nonisolated var loop: any Loop { subject.loop }

    /// The current model. Must be read on the main actor.
    @inlinable public var value: Model { subject.value }

    /// The cache as a Mainline observable of its model, for code that takes an `InitializedObservable` (a binding, a
    /// view model's input). Must be used on the main actor.
    ///
    /// Its observers are called at once with the current value, then on every change.
    public var observable: InitializedObservable<Model> { subject }

    /// Calls `onNext` now with the current model, then after every change, on the main actor.
    ///
    /// Must be called on the main actor.
    ///
    /// - Parameter onNext: The observer.
    /// - Returns: What ends the observation; dispose it (or add it to a `DisposeBag`). Releasing it does not.
    /// - Complexity: O(1) to register; each change calls every observer once.
    @inlinable
    public func observe(_ onNext: @escaping @MainActor (Model) -> Void) -> Disposable {
        subject.observe(onNext)
    }

    /// Replaces the whole model, and notifies the observers unless `value` equals the current model.
    ///
    /// Must be called on the main actor. Use it to make several changes at once: the observers see one change.
    ///
    /// - Parameter value: The new model.
    @inlinable
    public func update(with value: Model) {
        subject.update(value)
    }

    /// Sets one property of the model, and notifies the observers unless it already had that value.
    ///
    /// Must be called on the main actor.
    ///
    /// - Parameters:
    ///   - keyPath: The property.
    ///   - value: Its new value.
    @inlinable
    public func update<Property: Equatable>(_ keyPath: WritableKeyPath<Model, Property>, with value: Property) {
        var model = subject.value
        guard model[keyPath: keyPath] != value else { return }
        model[keyPath: keyPath] = value
        subject.update(model)
    }

    /// Changes the model with `transform`, and notifies the observers unless the result equals the current model.
    ///
    /// Must be called on the main actor. The observers see one change however many properties `transform` sets.
    ///
    /// `transform` is `@Sendable`, so it is not isolated to the main actor and cannot write to the cache itself: a
    /// write made while `transform` runs would be overwritten by its result. Read what it needs before the call.
    ///
    /// ```swift
    /// cache.update { $0.user = nil; $0.books.removeAll() }   // observers see one change
    /// ```
    ///
    /// - Parameter transform: Mutates a copy of the model.
    @inlinable
    public func update(_ transform: @Sendable (inout Model) -> Void) {
        var model = subject.value
        transform(&model)
        subject.update(model)
    }
}
