import Mainline

/// The topics that have subscribers on this server: each is an `InitializedSubject` of its latest ``Publication``,
/// which every subscribing ``ClientViewModel`` observes, and it exists exactly as long as something holds it.
///
/// Must be used on the main actor.
///
/// A topic is held by each client subscribed to it (and, in cluster mode, by a `SUB` waiting for the topic's feed);
/// the last ``release(_:)`` forgets it. A topic nobody holds has no subject: a `PUB` to it reaches nobody and creates
/// nothing, so the table's size is what the subscriptions make it, bounded per client by
/// ``Broker/maximumSubscriptions``.
@MainActor
struct TopicTable {
    /// A topic's subject and how many hold it.
    private struct Entry {
        let subject: InitializedSubject<Publication?>
        var holders: Int
    }

    private var entries: [String: Entry] = [:]

    /// An empty table.
    init() {}

    /// How many topics are held.
    var count: Int { entries.count }

    /// The subject of `name`, or `nil` when nobody holds it.
    func subject(_ name: String) -> InitializedSubject<Publication?>? {
        entries[name]?.subject
    }

    /// Holds `name` once more, creating its subject if nobody held it; returns the subject.
    mutating func retain(_ name: String) -> InitializedSubject<Publication?> {
        if let entry = entries[name] {
            entries[name]?.holders = entry.holders + 1
            return entry.subject
        }
        let subject = subjectOf(Publication?.none)
        entries[name] = Entry(subject: subject, holders: 1)
        return subject
    }

    /// Lets go of one hold of `name`; the last forgets the topic. A topic not held is ignored.
    mutating func release(_ name: String) {
        guard let entry = entries[name] else { return }
        if entry.holders <= 1 {
            entries[name] = nil
        } else {
            entries[name]?.holders = entry.holders - 1
        }
    }
}
