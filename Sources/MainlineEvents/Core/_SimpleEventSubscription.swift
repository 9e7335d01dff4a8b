import MainlineLoop

/// The token of a block observer: keeps the block in its event's observer list while it lives.
///
/// Must be used on the main actor (its `deinit` hops there when the last reference goes elsewhere).
@MainActor
final class _SimpleEventSubscription: SimpleEventToken {
    // Strong: the token may outlive its event, and must still be able to remove itself.
    private let list: _ObserverList
    private var entry: _ObserverEntry?

    init(list: _ObserverList, block: @escaping SimpleEventObservable.ObserverBlock) {
        self.list = list
        self.entry = list.add(block: block)
    }

    func remove() {
        guard let entry else { return }
        self.entry = nil
        list.remove(entry)
    }

    isolated deinit {
        remove()
    }
}
