import MainlineLoop

extension DataCache {
    /// Replaces the whole model on the loop, soon; as ``update(with:)``, it notifies no one if nothing changes.
    ///
    /// Thread-safe; never blocks and never applies the change synchronously, even on the loop. Changes posted from
    /// one thread are applied in the order they were posted.
    ///
    /// - Parameter value: The new model.
    /// - Returns: `false` if the loop has stopped and the change will never be applied.
    @inlinable @discardableResult
    public nonisolated func post(with value: Model) -> Bool {
        loop.post { [weak self] in self?.update(with: value) }
    }

    /// Changes the model with `transform` on the loop, soon; as ``update(_:)``, it notifies no one if the result
    /// equals the current model.
    ///
    /// Thread-safe; never blocks and never applies the change synchronously, even on the loop. Changes posted from
    /// one thread are applied in the order they were posted, each to the model the previous one left, so
    /// read-modify-write changes from many threads are never lost:
    ///
    /// ```swift
    /// DispatchQueue.concurrentPerform(iterations: 100) { _ in
    ///     cache.post { $0.downloads += 1 }   // 100 more, once the loop has applied them
    /// }
    /// ```
    ///
    /// - Parameter transform: Mutates the current model, on the loop.
    /// - Returns: `false` if the loop has stopped and the change will never be applied.
    @inlinable @discardableResult
    public nonisolated func post(_ transform: @escaping @Sendable (inout Model) -> Void) -> Bool {
        loop.post { [weak self] in self?.update(transform) }
    }

    /// Merges `elements` into a collection of the model by id on the loop, soon, as
    /// ``populate(_:with:)-2me9x`` does.
    ///
    /// Thread-safe; never blocks and never applies the change synchronously, even on the loop. Changes posted from
    /// one thread are applied in the order they were posted.
    ///
    /// - Parameters:
    ///   - keyPath: The collection; a key-path literal such as `\.books` is `Sendable`.
    ///   - elements: The elements to merge in.
    /// - Returns: `false` if the loop has stopped and the change will never be applied.
    @inlinable @discardableResult
    public nonisolated func post<Element: Identifiable & Sendable>(
        populating keyPath: WritableKeyPath<Model, [Element]> & Sendable,
        with elements: [Element]
    ) -> Bool {
        loop.post { [weak self] in self?.populate(keyPath, with: elements) }
    }

    /// Merges `elements` into an optional collection of the model by id on the loop, soon, creating it when it is
    /// `nil`, as ``populate(_:with:)-70g89`` does.
    ///
    /// Thread-safe; never blocks and never applies the change synchronously, even on the loop. Changes posted from
    /// one thread are applied in the order they were posted.
    ///
    /// - Parameters:
    ///   - keyPath: The optional collection; a key-path literal such as `\.books` is `Sendable`.
    ///   - elements: The elements to merge in.
    /// - Returns: `false` if the loop has stopped and the change will never be applied.
    @inlinable @discardableResult
    public nonisolated func post<Element: Identifiable & Sendable>(
        populating keyPath: WritableKeyPath<Model, [Element]?> & Sendable,
        with elements: [Element]
    ) -> Bool {
        loop.post { [weak self] in self?.populate(keyPath, with: elements) }
    }
}
