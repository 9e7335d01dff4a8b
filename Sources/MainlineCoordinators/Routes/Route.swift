import Foundation

/// A route deep link: which coordinators to build and start, in order, each the child of the one before, and how
/// each presents (LittleJohn's notification routes, in a Linux shape: a message, a file, a socket).
///
/// `Route` is a value type; all operations on it are thread-safe.
///
/// ```json
/// {"coordinatorPath": {"id": "shop", "items": [
///     {"id": "orders", "present": "push", "data": {}},
///     {"id": "order", "present": "present", "presentationStyle": "sheet", "data": {"orderID": 42}}
/// ]}}
/// ```
///
/// Every item must say how it presents: `"present"` is `"push"` or `"present"`, and an item without it is
/// rejected with ``RouteError/itemJSONInvalid(index:reason:)``, as upstream LittleJohn rejects it (Mainline used
/// to push such an item). `presentationStyle` is optional (a presented item without one is a sheet), and
/// `presentStyle` (upstream's spelling) is accepted for it. Decoding never traps: malformed input throws a
/// ``RouteError`` that says which item was wrong.
public struct Route: Sendable, Hashable {
    /// One coordinator to build and start.
    public struct Item: Sendable, Hashable {
        /// The registered identifier of the coordinator type.
        public var id: String
        /// How it presents: pushed onto the stack, or presented modally with ``style``.
        public var present: Present
        /// The modal style, for ``Present/present``.
        public var style: PresentationStyle?
        /// What the coordinator is built from.
        public var data: RouteData

        /// Creates an item.
        public init(id: String, present: Present = .push, style: PresentationStyle? = nil, data: RouteData) {
            self.id = id
            self.present = present
            self.style = style
            self.data = data
        }
    }

    /// How a route item's coordinator presents its screens.
    public enum Present: String, Sendable, Hashable {
        /// Pushed onto the navigation stack.
        case push
        /// Presented in the modal slot.
        case present
    }

    /// The identifier of the path (where it starts, for the host).
    public var id: String
    /// The coordinators, outermost first.
    public var items: [Item]

    /// Creates a route.
    public init(id: String, items: [Item]) {
        self.id = id
        self.items = items
    }

    /// Decodes a route from its JSON form.
    ///
    /// - Parameter json: The route.
    /// - Throws: ``RouteError/invalidNotificationPath(reason:)`` when it is not a JSON object with a
    ///   `coordinatorPath` holding a non-empty `items` array; ``RouteError/itemJSONInvalid(index:reason:)`` for a
    ///   malformed item: no `id`, no `present` or an unknown one, an unknown style, or `data` that is not an object.
    public init(json: Data) throws(RouteError) {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
        } catch {
            throw .invalidNotificationPath(reason: "not JSON (\(error.localizedDescription))")
        }
        guard let object = root as? [String: Any], let path = object["coordinatorPath"] as? [String: Any] else {
            throw .invalidNotificationPath(reason: "no \"coordinatorPath\" object")
        }
        guard let rawItems = path["items"] as? [Any], !rawItems.isEmpty else {
            throw .invalidNotificationPath(reason: "no items")
        }
        self.id = path["id"] as? String ?? ""
        self.items = try rawItems.enumerated().map { (index, raw) throws(RouteError) in try Self.item(raw, at: index) }
    }

    private static func item(_ raw: Any, at index: Int) throws(RouteError) -> Item {
        guard let item = raw as? [String: Any] else { throw .itemJSONInvalid(index: index, reason: "not an object") }
        guard let id = item["id"] as? String, !id.isEmpty else {
            throw .itemJSONInvalid(index: index, reason: "no \"id\" string")
        }
        let present: Present
        switch item["present"] {
        // As upstream LittleJohn: an item says how it presents; nothing is assumed.
        case nil: throw .itemJSONInvalid(index: index, reason: "no \"present\"; expected push or present")
        case let value as String:
            guard let known = Present(rawValue: value) else {
                throw .itemJSONInvalid(index: index, reason: "\"present\" is \"\(value)\"; expected push or present")
            }
            present = known
        default: throw .itemJSONInvalid(index: index, reason: "\"present\" is not a string")
        }
        var style: PresentationStyle?
        if let rawStyle = item["presentationStyle"] ?? item["presentStyle"] {
            guard let name = rawStyle as? String, let known = PresentationStyle(rawValue: name) else {
                throw .itemJSONInvalid(
                    index: index,
                    reason:
                        "unknown presentation style \(rawStyle); expected one of \(PresentationStyle.allCases.map(\.rawValue))"
                )
            }
            style = known
        }
        let data: Data
        switch item["data"] {
        case nil, is NSNull: data = Data("{}".utf8)
        case let object as [String: Any]:
            guard let encoded = _RouteDataJSON.encode(object) else {
                throw .itemJSONInvalid(index: index, reason: "\"data\" cannot be re-encoded")
            }
            data = encoded
        default: throw .itemJSONInvalid(index: index, reason: "\"data\" is not an object")
        }
        return Item(id: id, present: present, style: style, data: RouteData(json: data))
    }
}
