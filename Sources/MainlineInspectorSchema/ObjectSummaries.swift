/// A mailbox of the snapshot document.
///
/// `MailboxSummary` is a value type; all operations on it are thread-safe.
package struct MailboxSummary: Codable, Sendable, Equatable {
    /// The `name:` it was made with.
    @InspectorField package var name: String? = nil
    /// `bounded`, `latest` or `keyed`.
    @InspectorField package var kind: String? = nil
    /// Values waiting now.
    @InspectorField package var depth: Int? = nil
    /// How many can wait; `null` for a mailbox without a bound.
    @InspectorField package var capacity: Int? = nil
    /// Accepted values never delivered.
    @InspectorField package var dropped: Int? = nil
    /// Of those, the ones a newer value replaced (latest and keyed mailboxes; `0` for bounded ones).
    @InspectorField package var coalesced: Int? = nil
    /// The rest of `MailboxCounts`.
    @InspectorField package var accepted: Int? = nil
    /// Values refused.
    @InspectorField package var rejected: Int? = nil
    /// Values taken.
    @InspectorField package var delivered: Int? = nil
    /// Senders suspended.
    @InspectorField package var waiting: Int? = nil
    /// A bounded mailbox's overflow policy: `dropNewest`, `dropOldest`, `reject`, `suspend`.
    @InspectorField package var overflow: String? = nil

    /// A mailbox's summary.
    package init(
        name: String?,
        kind: String?,
        depth: Int?,
        capacity: Int?,
        dropped: Int?,
        coalesced: Int?,
        accepted: Int? = nil,
        rejected: Int? = nil,
        delivered: Int? = nil,
        waiting: Int? = nil,
        overflow: String? = nil
    ) {
        self.name = name
        self.kind = kind
        self.depth = depth
        self.capacity = capacity
        self.dropped = dropped
        self.coalesced = coalesced
        self.accepted = accepted
        self.rejected = rejected
        self.delivered = delivered
        self.waiting = waiting
        self.overflow = overflow
    }
}

/// A view model of the snapshot document.
///
/// `ViewModelSummary` is a value type; all operations on it are thread-safe.
package struct ViewModelSummary: Codable, Sendable, Equatable {
    /// Its class.
    @InspectorField package var type: String? = nil
    /// `initialized`, `resumed`, `paused` or `cleared`.
    @InspectorField package var state: String? = nil
    /// Unique in the process.
    @InspectorField package var id: Int? = nil

    /// A view model's summary.
    package init(type: String?, state: String?, id: Int?) {
        self.type = type
        self.state = state
        self.id = id
    }
}

/// A coordinator, or a container of screens (`NavigationStack`, `ModalSlot`, `Tabs`), of the snapshot document.
/// Fields that do not apply to one (a container's `parent`, a coordinator's `style`) are `null`.
///
/// `CoordinatorSummary` is a value type; all operations on it are thread-safe.
package struct CoordinatorSummary: Codable, Sendable, Equatable {
    /// Its class.
    @InspectorField package var type: String? = nil
    /// Unique in the process.
    @InspectorField package var id: Int? = nil
    /// A coordinator's `running`, `completed` or `cancelled`; `null` for a container.
    @InspectorField package var state: String? = nil
    /// The parent coordinator's `id`.
    @InspectorField package var parent: Int? = nil
    /// The parent coordinator's class.
    @InspectorField package var parentType: String? = nil
    /// `push`, `present`, `tab`; `null` before the coordinator starts.
    @InspectorField package var presentation: String? = nil
    /// A coordinator's screens in its container, then `"<Type> (child)"` for each running child; a container's
    /// screens, bottom or first first, as `"name"` or `"name (OwnerCoordinator)"`.
    @InspectorList package var stack: [String] = []
    /// A modal slot's `sheet` or `fullScreen`.
    @InspectorField package var style: String? = nil
    /// The selected tab's name.
    @InspectorField package var selected: String? = nil

    /// A coordinator's or a container's summary.
    package init(
        type: String?,
        id: Int?,
        state: String?,
        parent: Int? = nil,
        parentType: String? = nil,
        presentation: String? = nil,
        stack: [String],
        style: String? = nil,
        selected: String? = nil
    ) {
        self.type = type
        self.id = id
        self.state = state
        self.parent = parent
        self.parentType = parentType
        self.presentation = presentation
        self.stack = stack
        self.style = style
        self.selected = selected
    }
}
