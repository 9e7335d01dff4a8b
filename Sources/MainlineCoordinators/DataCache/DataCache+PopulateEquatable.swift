import MainlineObservables

// `populate` for elements that are only `Equatable`, merged by equality as FuturedKit's DataCache did before it
// required `Identifiable`; and the overloads that keep elements that are both merging by id.

extension DataCache {
    /// Merges `elements` into a collection of `Equatable` elements by equality, and notifies the observers unless
    /// nothing changed.
    ///
    /// Must be called on the main actor.
    ///
    /// The merge, as in FuturedKit (`populate` for `Equatable` elements): every element of the collection equal to
    /// one of `elements` is **removed**, and `elements` are **appended**, in their order and with their duplicates.
    /// An element already cached therefore moves to the end, with the new ones:
    ///
    /// ```swift
    /// // tags: ["swift", "linux", "uv"]
    /// cache.populate(\.tags, with: ["linux", "loop"])
    /// // tags: ["swift", "uv", "linux", "loop"]
    /// ```
    ///
    /// Empty `elements`, or a merge that leaves the collection as it was (`elements` equal to the collection's
    /// tail), stores nothing and notifies no one.
    ///
    /// Elements that are also `Identifiable` merge by id instead
    /// (``populate(_:with:)-2me9x``), as FuturedKit's current DataCache does.
    ///
    /// - Parameters:
    ///   - keyPath: The collection.
    ///   - elements: The elements to merge in.
    /// - Complexity: O(*n* × *m*), for *n* elements in the collection and *m* in `elements`: elements that are only
    ///   `Equatable` can be compared, not hashed.
    @inlinable
    public func populate<Element: Equatable>(
        _ keyPath: WritableKeyPath<Model, [Element]>,
        with elements: some Sequence<Element>
    ) {
        var model = subject.value
        guard let merged = _mergedByEquality(elements, into: model[keyPath: keyPath]) else { return }
        model[keyPath: keyPath] = merged
        subject.update(model)
    }

    /// Merges `elements` into an optional collection of `Equatable` elements by equality, creating the collection
    /// from them when it is `nil`, and notifies the observers unless nothing changed.
    ///
    /// Must be called on the main actor.
    ///
    /// The merge is that of ``populate(_:with:)-8ln1y`` for `Equatable` elements; a
    /// `nil` collection counts as empty. Empty `elements` store nothing, so a `nil` collection stays `nil`.
    ///
    /// - Parameters:
    ///   - keyPath: The optional collection.
    ///   - elements: The elements to merge in.
    /// - Complexity: O(*n* × *m*), for *n* elements in the collection and *m* in `elements`.
    @inlinable
    public func populate<Element: Equatable>(
        _ keyPath: WritableKeyPath<Model, [Element]?>,
        with elements: some Sequence<Element>
    ) {
        var model = subject.value
        guard let merged = _mergedByEquality(elements, into: model[keyPath: keyPath] ?? []) else { return }
        model[keyPath: keyPath] = merged
        subject.update(model)
    }

    /// Merges `elements` that are both `Identifiable` and `Equatable` into a collection **by id**, as
    /// ``populate(_:with:)-2me9x`` does for `Identifiable` elements.
    ///
    /// Must be called on the main actor.
    ///
    /// This overload exists so that such elements are not ambiguous between the merge by id and the merge by
    /// equality: they merge by id, as in FuturedKit's DataCache (which requires `Identifiable & Equatable`).
    ///
    /// - Parameters:
    ///   - keyPath: The collection.
    ///   - elements: The elements to merge in.
    /// - Complexity: O(*n* + *m*) on average, for *n* elements in the collection and *m* in `elements`.
    @inlinable
    public func populate<Element: Identifiable & Equatable>(
        _ keyPath: WritableKeyPath<Model, [Element]>,
        with elements: some Sequence<Element>
    ) {
        var model = subject.value
        guard let merged = _mergedByID(elements, into: model[keyPath: keyPath]) else { return }
        model[keyPath: keyPath] = merged
        subject.update(model)
    }

    /// Merges `elements` that are both `Identifiable` and `Equatable` into an optional collection **by id**, creating
    /// it when it is `nil`, as ``populate(_:with:)-70g89`` does for `Identifiable`
    /// elements.
    ///
    /// Must be called on the main actor.
    ///
    /// - Parameters:
    ///   - keyPath: The optional collection.
    ///   - elements: The elements to merge in.
    /// - Complexity: O(*n* + *m*) on average, for *n* elements in the collection and *m* in `elements`.
    @inlinable
    public func populate<Element: Identifiable & Equatable>(
        _ keyPath: WritableKeyPath<Model, [Element]?>,
        with elements: some Sequence<Element>
    ) {
        var model = subject.value
        guard let merged = _mergedByID(elements, into: model[keyPath: keyPath] ?? []) else { return }
        model[keyPath: keyPath] = merged
        subject.update(model)
    }
}

/// `current` with `elements` merged in by equality (see `DataCache.populate(_:with:)` for `Equatable` elements), or
/// `nil` when `elements` is empty: FuturedKit's `mergedCollection(current:newItems:)`.
@inlinable
func _mergedByEquality<Element: Equatable>(
    _ elements: some Sequence<Element>,
    into current: [Element]
) -> [Element]? {
    let incoming = Array(elements)
    guard !incoming.isEmpty else { return nil }
    var merged = current.filter { !incoming.contains($0) }
    merged.append(contentsOf: incoming)
    return merged
}
