import Foundation
import MainlineCoordinators
import MainlineLoop
import MainlineViewModels

// A shop whose view model navigates to an order (pushed, with the order's id in a bundle), a filter (presented,
// with the query in a bundle), back (pop), out of the filter (dismiss), and to help, which no navigator maps.

enum OrderBundle {
    static let orderID = NavigationBundleSpecRow("orderID", type: .int64)
    static let spec = NavigationBundleSpec("Order", rows: orderID)
}

enum FilterBundle {
    static let query = NavigationBundleSpecRow("query", type: .string)
    static let spec = NavigationBundleSpec("Filter", rows: query)
}

enum ShopNavigation: NavigationAction, Equatable {
    case order(NavigationBundle)
    case orderFlow(NavigationBundle)
    case filter(NavigationBundle)
    case back
    case closeFilter
    case help

    var bundle: NavigationBundle? {
        switch self {
        case .order(let bundle), .orderFlow(let bundle), .filter(let bundle): bundle
        case .back, .closeFilter, .help: nil
        }
    }

    static func order(_ id: Int64) -> Self {
        .order(OrderBundle.spec.toBundle { _ in OrderBundle.orderID.value(id) })
    }

    static func filter(_ query: String) -> Self {
        .filter(FilterBundle.spec.toBundle { _ in FilterBundle.query.value(query) })
    }
}

/// The view model that navigates: it only knows its actions, never the stack.
@MainActor
final class ShopViewModel: NavigatingViewModel<ShopNavigation> {
    func open(order id: Int64) -> Bool { navigate(.order(id)) }
}

/// The next screen's view model: it reads what it needs from the bundle, with its spec.
@MainActor
final class OrderViewModel: BaseViewModel {
    let orderID: Int64

    init(bundle: NavigationBundle?, loop: any Loop) throws(NavigationBundleGetError) {
        guard let bundle else { throw .rowNotInBundle(row: OrderBundle.orderID.key, spec: "no bundle") }
        orderID = try bundle.get(OrderBundle.orderID)
        super.init(loop: loop)
    }
}

@MainActor
final class OrderScreen: Screen {
    let model: OrderViewModel

    init(model: OrderViewModel, owner: AnyCoordinator? = nil) {
        self.model = model
        super.init("order \(model.orderID)", owner: owner)
    }
}

/// A flow for one order, started as a child coordinator by a navigator.
@MainActor
final class OrderCoordinator: Coordinator<Int64> {
    private let bundle: NavigationBundle?
    private let loop: any Loop

    init(bundle: NavigationBundle?, loop: any Loop, log: Log) {
        self.bundle = bundle
        self.loop = loop
        super.init(completed: { log.add("completed \($0)") }, cancelled: { log.add("order cancelled") })
    }

    override func start() {
        guard let model = try? OrderViewModel(bundle: bundle, loop: loop) else { return }
        show(OrderScreen(model: model, owner: self))
    }
}

/// The shop's flow: its screen's view model navigates through a navigator made from this coordinator.
@MainActor
final class ShopCoordinator: Coordinator<Void> {
    let loop: any Loop
    let log: Log
    private(set) var model: ShopViewModel?
    private(set) var shopNavigator: CoordinatorNavigator<ShopNavigation>?

    init(loop: any Loop, log: Log) {
        self.loop = loop
        self.log = log
        super.init(cancelled: { log.add("shop cancelled") })
    }

    override func start() {
        let made = navigator(for: ShopNavigation.self) { [loop, log] action in
            switch action {
            case .orderFlow(let bundle): .push(OrderCoordinator(bundle: bundle, loop: loop, log: log))
            case .back: .pop
            case .closeFilter: .dismissModal
            default: nil
            }
        }
        shopNavigator = made
        model = ShopViewModel(navigator: made, loop: loop)
        show(Screen("shop", owner: self))
    }
}

/// A navigator over `flow` that maps every shop action but `help`.
@MainActor
func shopNavigator(_ flow: NavigationStackWithModal, loop: any Loop) -> CoordinatorNavigator<ShopNavigation> {
    flow.navigator(for: ShopNavigation.self) { action in
        switch action {
        case .order(let bundle): .push(OrderScreen(model: try OrderViewModel(bundle: bundle, loop: loop)))
        case .filter(let bundle): .present(Screen("filter \(try bundle.get(FilterBundle.query))"), style: .fullScreen)
        case .back: .pop
        case .closeFilter: .dismissModal
        case .orderFlow, .help: nil
        }
    }
}

/// A help page a route builds, from its item's data.
@MainActor
final class HelpCoordinator: Coordinator<Void>, RoutableCoordinator {
    struct Input: Decodable { var topic: String }
    private let topic: String

    init(routeData: RouteData) throws {
        topic = try routeData.decode(Input.self).topic
        super.init()
    }

    override func start() {
        show(Screen("help \(topic)", owner: self))
    }
}

/// A route that presents help on `topic`.
func helpRoute(topic: String) throws -> Route {
    try Route(
        json: Data(
            #"{"coordinatorPath": {"id": "help", "items": [{"id": "help", "present": "present", "data": {"topic": "\#(topic)"}}]}}"#
                .utf8
        )
    )
}
