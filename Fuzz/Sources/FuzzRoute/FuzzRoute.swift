import Foundation
import FuzzSupport
import MainlineCoordinators
import MainlineViewModels

// Fuzzes `Route(json:)` and the bundles its items carry.
//
// Invariants: decoding never traps and throws only `RouteError`, with a description; a decoded route has items, each
// with an id and an object as data, equals itself, and decodes again, equal, from the JSON written from its fields;
// the data of each item, read as a bundle, obeys the bundle invariants.

/// libFuzzer's `LLVMFuzzerTestOneInput`, handed to the driver by the entry point.
func fuzzRouteOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let json = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let route: Route
    do {
        route = try Route(json: json)
    } catch {
        fuzzCheck(!error.description.isEmpty, "a route error with no description")
        return 0
    }
    fuzzCheck(route == route && route.hashValue == route.hashValue, "a route is not equal to itself: \(route)")
    fuzzCheck(!route.items.isEmpty, "a route with no items was accepted")
    for (index, item) in route.items.enumerated() {
        fuzzCheck(!item.id.isEmpty, "item \(index) has no id")
        let data = try? JSONSerialization.jsonObject(with: item.data.json) as? [String: Any]
        fuzzCheck(data != nil, "the data of item \(index) is not a JSON object")
        if let bundle = try? NavigationBundle(json: item.data.json, spec: itemSpec) {
            checkDecodedBundle(bundle, exact: false)
        }
    }
    // Written again from its public fields, the route reads back equal.
    let written: Data
    do {
        written = try JSONSerialization.data(withJSONObject: routeObject(route), options: [.sortedKeys])
    } catch {
        fuzzCheck(false, "a decoded route cannot be written again: \(error)")
        return 0
    }
    do {
        let again = try Route(json: written)
        fuzzCheck(again == route, "a route did not round-trip: \(route) came back as \(again)")
    } catch {
        fuzzCheck(false, "a route written from a decoded one does not decode: \(error)")
    }
    return 0
}

/// What a coordinator built from a route item might read from its data.
let itemSpec = NavigationBundleSpec(
    "Item",
    rows: NavigationBundleSpecRow("name", type: .optional(.string)),
    NavigationBundleSpecRow("count", type: .optional(.int)),
    NavigationBundleSpecRow("ratio", type: .optional(.double)),
    NavigationBundleSpecRow("at", type: .optional(.date)),
    NavigationBundleSpecRow("tags", type: .optional(.array(.string)))
)

/// The JSON form of `route`, as the documentation of `Route` describes it.
func routeObject(_ route: Route) -> [String: Any] {
    let items: [[String: Any]] = route.items.map { item in
        var object: [String: Any] = ["id": item.id, "present": item.present.rawValue]
        if let style = item.style { object["presentationStyle"] = style.rawValue }
        object["data"] = try? JSONSerialization.jsonObject(with: item.data.json)
        return object
    }
    return ["coordinatorPath": ["id": route.id, "items": items]]
}
