import Mainline

/// Subscriptions to topics: who may subscribe to what, and letting go of a topic. Runs on the main actor.
///
/// A topic (``TopicTable``) exists while a subscription holds it, and a client holds at most
/// ``maximumSubscriptions``, so no client can fill the table for the others.
extension Broker {
    /// The `ERR` line for a `SUB` of `name` that `viewModel`'s client may not make, or `nil` when it may: the name
    /// must be a valid topic (``refusal(of:)``), the client not already subscribed, and below
    /// ``maximumSubscriptions``.
    func refusal(ofSubscription name: String, for viewModel: ClientViewModel) -> String? {
        if let reason = Self.refusal(of: name) { return reason }
        if viewModel.subscriptions[name] != nil { return "ERR already subscribed to \(name)" }
        guard viewModel.subscriptions.count < Self.maximumSubscriptions else {
            return "ERR too many subscriptions (limit \(Self.maximumSubscriptions))"
        }
        return nil
    }

    /// Ends `client`'s subscription to `name`, if it has one: the topic is forgotten when it was its last subscriber
    /// (and, in cluster mode, the topic's feed closes). Returns whether it was subscribed.
    func unsubscribe(_ client: ClientConnection, from name: String) -> Bool {
        guard client.viewModel.unsubscribe(name) else { return false }
        releaseTopic(name)
        return true
    }

    /// Lets go of one subscription's hold of `name`: the topic is forgotten when it was the last (and, in cluster
    /// mode, the topic's feed closes with its last holder).
    func releaseTopic(_ name: String) {
        topics.release(name)
        cluster?.release(name)
    }
}
