import MainlineLoop
import Observation

extension InitializedSubject where T: Equatable {
    /// Keeps this subject and `other` equal, in both directions, until the returned disposable is disposed.
    ///
    /// Must be called on the main actor. `other` takes this subject's value first; after that a change to either
    /// is applied to the other. Conflation stops the echo: the value coming back is equal, so it notifies no one.
    ///
    /// - Parameter other: The subject to keep in step.
    /// - Returns: What ends the binding (both directions).
    public func bind(to other: InitializedSubject<T>) -> Disposable {
        let forward = observe { [weak other] in other?.update($0) }
        let backward = other.observe { [weak self] in self?.update($0) }
        return Disposable {
            forward.dispose()
            backward.dispose()
        }
    }
}

extension InitializedSubject where T: Equatable & Sendable {
    /// Keeps this subject and a property of an `@Observable` object equal, in both directions, until the returned
    /// disposable is disposed.
    ///
    /// Must be called on the main actor. The property takes this subject's value first. A change made through the
    /// subject is written to the property at once; a change made to the property (tracked with Observation) reaches
    /// the subject on the loop, in a later iteration. Conflation stops the echo in both directions. The object is
    /// held weakly.
    ///
    /// - Parameters:
    ///   - object: The object, isolated to the main actor.
    ///   - keyPath: The property.
    /// - Returns: What ends the binding (both directions).
    public func bind<Object: AnyObject & Observable & Sendable>(
        to object: Object,
        _ keyPath: ReferenceWritableKeyPath<Object, T>
    ) -> Disposable {
        let tracking = _PropertyTracking(object: object, keyPath: keyPath, loop: loop) { [weak self] value in
            self?.update(value)
        }
        let forward = observe { [weak object] value in
            guard let object, object[keyPath: keyPath] != value else { return }
            object[keyPath: keyPath] = value
        }
        tracking.start()
        return Disposable {
            forward.dispose()
            tracking.stop()
        }
    }
}

/// Follows one property of an `@Observable` object with Observation and reports each new value on the loop.
///
/// `stop()` is thread-safe; everything else runs on the main actor.
final class _PropertyTracking<Object: AnyObject & Observable & Sendable, T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `keyPath` (a key path to a main-actor property is not `Sendable`) is used only on the main
    // actor, in `start()` and in the job it posts to the loop; every other stored property is `Sendable`.
    private weak let object: Object?
    private let keyPath: ReferenceWritableKeyPath<Object, T>
    private let loop: any Loop
    private let onChange: @MainActor (T) -> Void
    private let stopped = _Locked(false)

    init(
        object: Object,
        keyPath: ReferenceWritableKeyPath<Object, T>,
        loop: any Loop,
        onChange: @escaping @MainActor (T) -> Void
    ) {
        self.object = object
        self.keyPath = keyPath
        self.loop = loop
        self.onChange = onChange
    }

    /// Starts tracking (again): the next change to the property is reported once, then tracking restarts.
    @MainActor func start() {
        guard !stopped.withLock({ $0 }), let object else { return }
        withObservationTracking {
            _ = object[keyPath: keyPath]
        } onChange: { [self] in
            // Called before the change lands, on the thread that makes it: read the new value on the loop.
            loop.post { [self] in
                guard !stopped.withLock({ $0 }), let object = self.object else { return }
                onChange(object[keyPath: keyPath])
                start()
            }
        }
    }

    /// Stops reporting changes. Thread-safe.
    func stop() {
        stopped.withLock { $0 = true }
    }
}
