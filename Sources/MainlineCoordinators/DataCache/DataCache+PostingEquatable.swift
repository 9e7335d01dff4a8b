import MainlineLoop

// `post(populating:with:)` for elements that are only `Equatable` (merged by equality), and for elements that are both
// `Identifiable` and `Equatable` (merged by id), beside the `Identifiable` form in `DataCache+Posting.swift`.

extension DataCache {
    /// Merges `Equatable` `elements` into a collection of the model by equality on the loop, soon, as
    /// ``populate(_:with:)-8ln1y`` does for `Equatable` elements.
    ///
    /// Thread-safe; never blocks and never applies the change synchronously, even on the loop. Changes posted from
    /// one thread are applied in the order they were posted.
    ///
    /// - Parameters:
    ///   - keyPath: The collection; a key-path literal such as `\.tags` is `Sendable`.
    ///   - elements: The elements to merge in.
    /// - Returns: `false` if the loop has stopped and the change will never be applied.
    @inlinable @discardableResult
    public nonisolated func post<Element: Equatable & Sendable>(
        populating keyPath: WritableKeyPath<Model, [Element]> & Sendable,
        with elements: [Element]
    ) -> Bool {
        loop.post { [weak self] in self?.populate(keyPath, with: elements) }
    }

    /// Merges `Equatable` `elements` into an optional collection of the model by equality on the loop, soon,
    /// creating it when it is `nil`, as ``populate(_:with:)-6838r`` does for
    /// `Equatable` elements.
    ///
    /// Thread-safe; never blocks and never applies the change synchronously, even on the loop. Changes posted from
    /// one thread are applied in the order they were posted.
    ///
    /// - Parameters:
    ///   - keyPath: The optional collection; a key-path literal such as `\.tags` is `Sendable`.
    ///   - elements: The elements to merge in.
    /// - Returns: `false` if the loop has stopped and the change will never be applied.
    @inlinable @discardableResult
    public nonisolated func post<Element: Equatable & Sendable>(
        populating keyPath: WritableKeyPath<Model, [Element]?> & Sendable,
        with elements: [Element]
    ) -> Bool {
        loop.post { [weak self] in self?.populate(keyPath, with: elements) }
    }

    /// Merges `elements` that are both `Identifiable` and `Equatable` into a collection of the model **by id** on
    /// the loop, soon: they are not ambiguous between the merge by id and the merge by equality.
    ///
    /// Thread-safe; never blocks and never applies the change synchronously, even on the loop. Changes posted from
    /// one thread are applied in the order they were posted.
    ///
    /// - Parameters:
    ///   - keyPath: The collection; a key-path literal such as `\.books` is `Sendable`.
    ///   - elements: The elements to merge in.
    /// - Returns: `false` if the loop has stopped and the change will never be applied.
    @inlinable @discardableResult
    public nonisolated func post<Element: Identifiable & Equatable & Sendable>(
        populating keyPath: WritableKeyPath<Model, [Element]> & Sendable,
        with elements: [Element]
    ) -> Bool {
        loop.post { [weak self] in self?.populate(keyPath, with: elements) }
    }

    /// Merges `elements` that are both `Identifiable` and `Equatable` into an optional collection of the model
    /// **by id** on the loop, soon, creating it when it is `nil`.
    ///
    /// Thread-safe; never blocks and never applies the change synchronously, even on the loop. Changes posted from
    /// one thread are applied in the order they were posted.
    ///
    /// - Parameters:
    ///   - keyPath: The optional collection; a key-path literal such as `\.books` is `Sendable`.
    ///   - elements: The elements to merge in.
    /// - Returns: `false` if the loop has stopped and the change will never be applied.
    @inlinable @discardableResult
    public nonisolated func post<Element: Identifiable & Equatable & Sendable>(
        populating keyPath: WritableKeyPath<Model, [Element]?> & Sendable,
        with elements: [Element]
    ) -> Bool {
        loop.post { [weak self] in self?.populate(keyPath, with: elements) }
    }
}
