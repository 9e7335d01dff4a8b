import Mainline

/// One order, as the HTTP handler received it.
struct Order: Sendable {
    var item: String
}

/// The order desk: a view model on the main loop that takes orders from a waiting mailbox and keeps the tally.
///
/// Main actor. HTTP handlers run on SwiftNIO's threads: they hand orders in with `try await orders.send(_:)` — which
/// waits while the mailbox is full, so a burst of requests slows the clients down instead of growing a queue — and
/// read the tally with `try await loop.run { desk.tally }`. While the desk is resumed (open), its scope's
/// task takes the orders with `for await`; paused (closed), nobody takes them, the mailbox fills, and the next
/// handlers wait in `send(_:)` until it opens again. While open it also ticks once a second to count how long it has
/// been open (`GET /desk`).
@MainActor
final class OrderDesk: BaseViewModel {
    /// The orders waiting for the desk; handlers wait in `send(_:)` while it is full.
    nonisolated let orders: BoundedMailbox<Order>
    /// How many of each item the desk has taken.
    private(set) var counts: [String: Int] = [:]
    /// How many orders the desk has taken.
    private(set) var taken = 0
    /// Whole seconds the desk has been open, counted by its tick.
    private(set) var secondsOpen = 0

    init(capacity: Int, loop: any Loop = MainLoop.main) {
        orders = BoundedMailbox(capacity: capacity, overflow: .suspend, loop: loop)
        super.init(loop: loop)
    }

    override func onResume(_ scope: ViewModelScope) {
        scope.launch { [weak self, orders] in
            for await order in orders.values {
                self?.take(order)
            }
        }
        scope.tick(every: .seconds(1)) { [weak self] tick in
            // A tick the loop reached late stands for the first second it missed; `skipped` counts the others.
            self?.secondsOpen += 1 + tick.skipped
        }
    }

    /// The desk's state as text: `open` or `closed`, then `seconds-open <n>`, the whole seconds it has been open in
    /// all.
    var status: String {
        "\(state == .resumed ? "open" : "closed")\nseconds-open \(secondsOpen)"
    }

    /// The tally as text: `taken <n>`, `waiting <senders waiting for room>`, then `<item> <count>` per item, sorted by
    /// item.
    var tally: String {
        let head = ["taken \(taken)", "waiting \(orders.counts.waiting)"]
        return (head + counts.keys.sorted().map { "\($0) \(counts[$0]!)" }).joined(separator: "\n")
    }

    private func take(_ order: Order) {
        taken += 1
        counts[order.item, default: 0] += 1
    }
}
