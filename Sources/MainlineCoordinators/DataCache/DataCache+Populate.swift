import MainlineObservables

extension DataCache {
    /// Merges `elements` into a collection of the model by id, and notifies the observers unless nothing changed.
    ///
    /// Must be called on the main actor.
    ///
    /// The merge, as in FuturedKit:
    /// - an element whose id is already in the collection replaces it **in place** (every element with that id);
    /// - elements with new ids are **appended**, in the order their ids first appear in `elements`;
    /// - when `elements` holds an id more than once, the **last** one wins (at the position of the first);
    /// - elements of the collection whose ids are not in `elements` are **kept**.
    ///
    /// Empty `elements`, or a merge that leaves the model equal to what it was, stores nothing and notifies no one.
    ///
    /// ```swift
    /// // books: [1 "Emma", 2 "Persuasion"]
    /// cache.populate(\.books, with: [Book(id: 3, "Ulysses"), Book(id: 1, "Emma (2nd ed.)")])
    /// // books: [1 "Emma (2nd ed.)", 2 "Persuasion", 3 "Ulysses"]
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: The collection.
    ///   - elements: The elements to merge in, for example a page fetched from a service.
    /// - Complexity: O(*n* + *m*) on average, for *n* elements in the collection and *m* in `elements`, plus the
    ///   comparison of the model that decides whether to notify.
    @inlinable
    public func populate<Element: Identifiable>(
        _ keyPath: WritableKeyPath<Model, [Element]>,
        with elements: some Sequence<Element>
    ) {
        var model = subject.value
        guard let merged = _mergedByID(elements, into: model[keyPath: keyPath]) else { return }
        model[keyPath: keyPath] = merged
        subject.update(model)
    }

    /// Merges `elements` into an optional collection of the model by id, creating the collection from them when it
    /// is `nil`, and notifies the observers unless nothing changed.
    ///
    /// Must be called on the main actor.
    ///
    /// The merge is that of ``populate(_:with:)-2me9x``; a `nil` collection counts as
    /// empty. Empty `elements` store nothing, so a `nil` collection stays `nil`.
    ///
    /// - Parameters:
    ///   - keyPath: The optional collection.
    ///   - elements: The elements to merge in.
    /// - Complexity: O(*n* + *m*) on average, for *n* elements in the collection and *m* in `elements`, plus the
    ///   comparison of the model that decides whether to notify.
    @inlinable
    public func populate<Element: Identifiable>(
        _ keyPath: WritableKeyPath<Model, [Element]?>,
        with elements: some Sequence<Element>
    ) {
        var model = subject.value
        guard let merged = _mergedByID(elements, into: model[keyPath: keyPath] ?? []) else { return }
        model[keyPath: keyPath] = merged
        subject.update(model)
    }
}

/// `current` with `elements` merged in by id (see `DataCache.populate(_:with:)`), or `nil` when `elements` is empty.
///
/// Inlinable so that the dictionary and set of ids are specialised for the caller's `Element`.
@inlinable
func _mergedByID<Element: Identifiable>(
    _ elements: some Sequence<Element>,
    into current: [Element]
) -> [Element]? {
    // The last element given for each id, and the ids in order of first appearance.
    var newest: [Element.ID: Element] = [:]
    var order: [Element.ID] = []
    for element in elements {
        if newest.updateValue(element, forKey: element.id) == nil {
            order.append(element.id)
        }
    }
    guard !order.isEmpty else { return nil }

    var merged = current
    var replaced = Set<Element.ID>()
    for index in merged.indices {
        let id = merged[index].id
        if let element = newest[id] {
            merged[index] = element
            replaced.insert(id)
        }
    }
    for id in order where !replaced.contains(id) {
        merged.append(newest[id]!)
    }
    return merged
}
