import MainlineEvents
import MainlineLoop

/// A data source that groups the elements of an ``ArrayModel`` into one section per group key, and records the
/// difference between the old and new groups when the model changes.
///
/// Must be used on the main actor.
///
/// ```swift
/// let byStatus = GroupedDataSource(model: tasks, groupedBy: \.status, orderedBy: <)
/// tasks.append(Task(title: "ship", status: "todo"))
/// tasks.remove(at: 0)
/// // … the current callback returns; in settle the source regroups once and records one diff.
/// ```
///
/// - **Mainline**: regrouping is coalesced per loop iteration through a `CoalescingCallback`: any number of model
///   mutations in one iteration cost one regroup and produce one change set. Until then the source keeps serving
///   the groups its last change set described.
/// - The diff: groups whose key disappeared are deleted (last first), new groups are inserted (fetched whole), and
///   inside the groups that stayed, rows are deleted and inserted as `Collection.difference(from:)` finds them.
///   A group whose position among the others changed is deleted and inserted again.
/// - Keys are sorted with `areInIncreasingOrder`, or kept in order of first appearance without it; elements keep
///   the model's order inside their group.
@MainActor
public final class GroupedDataSource<Element: Equatable, Key: Hashable>: DataSource<Element> {
    /// One group: a key and its elements, in the model's order.
    public struct Group {
        /// The key every element of the group has.
        public var key: Key
        /// The elements, in the model's order.
        public var elements: [Element]
    }

    /// The model being grouped.
    public let model: ArrayModel<Element>
    /// The groups as last recorded, one per section.
    public private(set) var groups: [Group] = []
    private let key: @MainActor (Element) -> Key
    private let areInIncreasingOrder: (@MainActor (Key, Key) -> Bool)?
    private let titleOf: @MainActor (Key) -> String?
    private lazy var regroupCallback = CoalescingCallback(loop: loop) { [weak self] in self?.regroup() }

    /// Creates a source grouping `model` now and after each of its changes.
    ///
    /// - Parameters:
    ///   - model: The elements.
    ///   - loop: The loop whose settle phase regroups; the main loop unless a test passes a `TestLoop`.
    ///   - key: The group of an element.
    ///   - title: The title of a group's section (for ``DataSource/section(forTitle:)``); none by default.
    ///   - areInIncreasingOrder: The order of the groups; order of first appearance when `nil`.
    public init(
        model: ArrayModel<Element>,
        loop: any Loop = MainLoop.main,
        groupedBy key: @escaping @MainActor (Element) -> Key,
        title: @escaping @MainActor (Key) -> String? = { _ in nil },
        orderedBy areInIncreasingOrder: (@MainActor (Key, Key) -> Bool)? = nil
    ) {
        self.model = model
        self.key = key
        self.titleOf = title
        self.areInIncreasingOrder = areInIncreasingOrder
        super.init(loop: loop)
        groups = grouped(model.elements)
        model.addListener { [weak self] _ in
            guard let self else { return false }
            regroupCallback.schedule()
            return true
        }
    }

    /// One section per group.
    public override var numberOfSections: Int { groups.count }

    /// The elements of the group; 0 for a section the source does not have.
    public override func numberOfRows(in section: Int) -> Int {
        groups.indices.contains(section) ? groups[section].elements.count : 0
    }

    /// The element at `path`; a path outside the source traps.
    public override func item(at path: RowPath) -> Element {
        groups[path.section].elements[path.row]
    }

    /// The title of the group's key.
    public override func title(forSection section: Int) -> String? {
        groups.indices.contains(section) ? titleOf(groups[section].key) : nil
    }

    /// Regroups now instead of in the next settle phase (and withdraws nothing: a pending regroup finds nothing
    /// more to record).
    public func regroupNow() {
        regroup()
    }

    private func regroup() {
        let old = groups
        let new = grouped(model.elements)
        groups = new
        record(Self.difference(from: old, to: new))
    }

    private func grouped(_ elements: [Element]) -> [Group] {
        var order: [Key] = []
        var members: [Key: [Element]] = [:]
        for element in elements {
            let key = key(element)
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(element)
        }
        if let areInIncreasingOrder { order.sort(by: areInIncreasingOrder) }
        return order.map { Group(key: $0, elements: members[$0]!) }
    }

    /// The sequential history that turns `old` into `new`: section deletes (last first), section inserts (first
    /// first), then row deletes and inserts inside the sections that stayed.
    static func difference(from old: [Group], to new: [Group]) -> ChangeSet {
        var changes = ChangeSet()
        let keys = new.map(\.key).difference(from: old.map(\.key))
        var inserted = Set<Int>()
        for case .remove(let offset, _, _) in keys.removals.reversed() { changes.deletedSection(offset) }
        for case .insert(let offset, _, _) in keys.insertions {
            changes.insertedSection(offset)
            inserted.insert(offset)
        }
        let oldByKey = Dictionary(uniqueKeysWithValues: old.map { ($0.key, $0.elements) })
        for (section, group) in new.enumerated() where !inserted.contains(section) {
            guard let before = oldByKey[group.key] else { continue }
            let rows = group.elements.difference(from: before)
            for case .remove(let offset, _, _) in rows.removals.reversed() {
                changes.deletedRow(at: RowPath(section: section, row: offset))
            }
            for case .insert(let offset, _, _) in rows.insertions {
                changes.insertedRow(at: RowPath(section: section, row: offset))
            }
        }
        return changes
    }
}
