import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import MainlineViewModels
import Testing

/// One navigation vocabulary (issue 17, item 7): a view model's `NavigationAction` goes to a navigator made from a
/// coordinator or a container, which pushes, presents, pops or dismisses, and the next screen's view model reads
/// the action's bundle with its spec.
@MainActor
@Suite("CoordinatorNavigator")
struct CoordinatorNavigatorTests {
    @Test func aViewModelsActionPushesTheNextScreenWhoseViewModelReadsTheBundle() throws {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(root: Screen("shop"), loop: loop)
        let model = ShopViewModel(navigator: shopNavigator(flow, loop: loop), loop: loop)

        #expect(model.open(order: 1_042))

        let top = try #require(flow.stack.top.current as? OrderScreen)
        #expect(top.model.orderID == 1_042)
        #expect(flow.stack.screens.map(\.name) == ["shop", "order 1042"])
        #expect(flow.modal.modal.current == nil)
    }

    @Test func aPresentActionPresentsTheNextScreenModallyWithItsStyle() throws {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(root: Screen("shop"), loop: loop)
        let model = ShopViewModel(navigator: shopNavigator(flow, loop: loop), loop: loop)

        #expect(model.navigate(.filter("red shoes")))

        #expect(flow.modal.modal.current?.name == "filter red shoes")
        #expect(flow.modal.style == .fullScreen)
        #expect(flow.stack.screens.map(\.name) == ["shop"], "presenting leaves the stack as it was")
    }

    @Test func popAndDismissActionsRemoveTheScreenTheyName() {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(root: Screen("shop"), loop: loop)
        let model = ShopViewModel(navigator: shopNavigator(flow, loop: loop), loop: loop)
        model.navigate(.order(1))
        model.navigate(.filter("red"))
        var dismissed: [String] = []
        flow.modal.onModalDismiss = { dismissed.append($0.name) }

        #expect(model.navigate(.closeFilter))
        #expect(flow.modal.modal.current == nil)
        #expect(dismissed == ["filter red"])
        #expect(flow.stack.screens.map(\.name) == ["shop", "order 1"])

        #expect(model.navigate(.back))
        #expect(flow.stack.screens.map(\.name) == ["shop"])
    }

    @Test func popToAScreenKeepsItOnTopAndAMissingOneFailsWithTheStacksReport() throws {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(root: Screen("shop"), loop: loop)
        let orders = Screen("orders")
        flow.navigate(to: orders)
        flow.navigate(to: Screen("order 1"))
        flow.navigate(to: Screen("order 2"))
        let navigator = flow.navigator(for: ShopNavigation.self) { _ in .pop(to: orders) }

        try navigator.navigate(.back)
        #expect(flow.stack.screens.map(\.name) == ["shop", "orders"])

        let elsewhere = Screen("elsewhere")
        let lost = flow.navigator(for: ShopNavigation.self) { _ in .pop(to: elsewhere) }
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            #expect(
                throws: NavigationError.failed(action: "back", reason: "elsewhere is not on the stack to pop to")
            ) { try lost.navigate(.back) }
        }
        #expect(diagnostics.kinds == [.popToMissingScreen])
        #expect(flow.stack.screens.map(\.name) == ["shop", "orders"])
    }

    @Test func popWithNothingAboveTheRootFailsAndTheStackReportsItsOwnMisuse() {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(root: Screen("shop"), loop: loop)
        let navigator = shopNavigator(flow, loop: loop)
        let diagnostics = DiagnosticsRecorder()

        diagnostics.record {
            let expected = NavigationError.failed(
                action: "back",
                reason: "nothing is above the root of the stack to pop"
            )
            #expect(throws: expected) { try navigator.navigate(.back) }
        }

        #expect(diagnostics.kinds == [.popEmptyStack])
        #expect(flow.stack.screens.map(\.name) == ["shop"])
    }

    @Test func dismissWithNoModalShownFailsWithoutAReport() {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(loop: loop)
        let navigator = shopNavigator(flow, loop: loop)
        let diagnostics = DiagnosticsRecorder()

        diagnostics.record {
            #expect(throws: NavigationError.failed(action: "closeFilter", reason: "no modal is presented to dismiss")) {
                try navigator.navigate(.closeFilter)
            }
        }

        #expect(diagnostics.kinds.isEmpty)
    }

    @Test func anUnmappedActionThrowsUnsupportedActionAndShowsNothing() {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(root: Screen("shop"), loop: loop)
        let navigator = shopNavigator(flow, loop: loop)
        let model = ShopViewModel(navigator: navigator, loop: loop)
        let diagnostics = DiagnosticsRecorder()

        diagnostics.record {
            #expect(throws: NavigationError.unsupportedAction("help")) { try navigator.navigate(.help) }
            #expect(!model.navigate(.help), "the view model learns that it did not navigate")
            var failure: NavigationError?
            navigator.navigateOrElse(.help) { failure = $0 }
            #expect(failure == .unsupportedAction("help"))
        }

        #expect(diagnostics.kinds.isEmpty, "a typed error, not a Diagnostics report")
        #expect(flow.stack.screens.map(\.name) == ["shop"])
        #expect(flow.modal.modal.current == nil)
    }

    @Test func aBundleTheNextScreenCannotReadFailsWithTheGetErrorNamingTheRowAndShowsNothing() {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(root: Screen("shop"), loop: loop)
        let navigator = shopNavigator(flow, loop: loop)
        // An order action carrying a filter's bundle: the order screen's view model finds no "orderID" in it.
        let wrong = ShopNavigation.order(FilterBundle.spec.toBundle { _ in FilterBundle.query.value("red") })
        let getError = NavigationBundleGetError.rowNotInBundle(row: "orderID", spec: "Filter")

        #expect(
            throws: NavigationError.failed(
                action: "\(wrong)",
                reason: "the next screen could not be built: \(getError)"
            )
        ) { try navigator.navigate(wrong) }

        // A row of the same key read as another type: the spec decides, as Kaluga's `get` does.
        let mistyped = NavigationBundleSpecRow("orderID", type: .string)
        let mistypedBundle = NavigationBundleSpec("Order", rows: mistyped).toBundle { _ in mistyped.value("1042") }
        #expect(throws: NavigationError.self) { try navigator.navigate(.order(mistypedBundle)) }
        #expect(throws: NavigationBundleGetError.wrongType(row: "orderID", expected: "Int64", found: "String")) {
            try OrderViewModel(bundle: mistypedBundle, loop: loop)
        }

        #expect(flow.stack.screens.map(\.name) == ["shop"])
    }

    @Test func aClearedViewModelDoesNotReachTheNavigator() {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(root: Screen("shop"), loop: loop)
        var mapped = 0
        let navigator = flow.navigator(for: ShopNavigation.self) { _ in
            mapped += 1
            return .push(Screen("order"))
        }
        let model = ShopViewModel(navigator: navigator, loop: loop)
        model.clear()
        let diagnostics = DiagnosticsRecorder()

        let navigated = diagnostics.record { model.open(order: 1) }

        #expect(!navigated)
        #expect(diagnostics.kinds == [.transitionAfterClear])
        #expect(mapped == 0)
        #expect(flow.stack.screens.map(\.name) == ["shop"])
    }

    @Test func aCoordinatorsNavigatorStartsAChildCoordinatorThatIsReleasedWithItsScreen() throws {
        let loop = TestLoop()
        let log = Log()
        let stack = NavigationStack(loop: loop)
        let shop = ShopCoordinator(loop: loop, log: log)
        shop.start(presentation: .push(stack))
        let model = try #require(shop.model)

        #expect(model.navigate(.orderFlow(OrderBundle.spec.toBundle { _ in OrderBundle.orderID.value(7) })))

        do {
            let top = try #require(stack.top.current as? OrderScreen)
            #expect(top.model.orderID == 7)
            let child = try #require(top.owner as? OrderCoordinator)
            #expect(child.parent === shop)
        }

        #expect(model.navigate(.back))
        #expect(log.entries == ["order cancelled"], "the child went with its last screen")
        #expect(stack.screens.map(\.name) == ["shop"])
    }

    @Test func aPresentedCoordinatorsNavigatorDismissesTheSlotItWasPresentedIn() throws {
        let loop = TestLoop()
        let log = Log()
        let slot = ModalSlot(loop: loop)
        let model: ShopViewModel
        do {
            let shop = ShopCoordinator(loop: loop, log: log)
            shop.start(presentation: .present(slot, style: .sheet))
            model = try #require(shop.model)
        }
        #expect(slot.modal.current?.name == "shop")

        #expect(model.navigate(.closeFilter))

        #expect(slot.modal.current == nil)
        #expect(log.entries == ["shop cancelled"], "its screen left, and the coordinator with it")
    }

    @Test func aRouteSpecStartsTheRoutesCoordinatorsAsChildrenOfTheNavigatorsCoordinator() throws {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(loop: loop)
        let shop = ShopCoordinator(loop: loop, log: Log())
        shop.start(presentation: .push(flow.stack))
        let registry = RouteRegistry()
        registry.register(HelpCoordinator.self, as: "help")
        let navigator = flow.navigator(for: ShopNavigation.self, coordinator: shop) { action in
            guard case .help = action else { return nil }
            return .route(try helpRoute(topic: "returns"), in: registry)
        }

        try navigator.navigate(.help)

        let help = try #require(flow.modal.modal.current)
        #expect(help.name == "help returns")
        #expect(help.owner?.parent === shop)
        #expect(flow.modal.style == .sheet)
    }

    @Test func aRouteTheRegistryRejectsFailsWithItsRouteErrorAndStartsNothing() {
        let loop = TestLoop()
        let flow = NavigationStackWithModal(root: Screen("shop"), loop: loop)
        let navigator = flow.navigator(for: ShopNavigation.self) { _ in
            .route(try helpRoute(topic: "returns"), in: RouteRegistry())
        }

        #expect(
            throws: NavigationError.failed(
                action: "help",
                reason: "its route was rejected: \(RouteError.idNotRegistered("help"))"
            )
        ) { try navigator.navigate(.help) }
        #expect(flow.modal.modal.current == nil)
        #expect(flow.stack.screens.map(\.name) == ["shop"])
    }

    @Test func navigatingAfterTheCoordinatorWasReleasedIsUnavailable() throws {
        let loop = TestLoop()
        let log = Log()
        let stack = NavigationStack(loop: loop)
        var navigator: CoordinatorNavigator<ShopNavigation>?
        do {
            let shop = ShopCoordinator(loop: loop, log: log)
            shop.start(presentation: .push(stack))
            navigator = shop.shopNavigator
        }
        stack.reset()
        #expect(log.entries == ["shop cancelled"])

        #expect(
            throws: NavigationError.unavailable(
                reason: "the coordinator of ShopNavigation's navigator was released with its screens"
            )
        ) { try navigator?.navigate(.orderFlow(OrderBundle.spec.toBundle { _ in OrderBundle.orderID.value(7) })) }
        #expect(stack.screens.isEmpty, "no orphan child was started")
    }

    @Test func aStackOnlyNavigatorCannotPresentAndSaysWhy() {
        let loop = TestLoop()
        let stack = NavigationStack(root: Screen("shop"), loop: loop)
        let navigator = stack.navigator(for: ShopNavigation.self) { _ in .present(Screen("filter")) }

        #expect(
            throws: NavigationError.failed(
                action: "filter(Filter(query: red))",
                reason: "the navigator was made without a modal slot to present or dismiss"
            )
        ) { try navigator.navigate(.filter("red")) }
        #expect(stack.screens.map(\.name) == ["shop"])
    }

    @Test func theNavigatorDoesNotKeepItsContainersAlive() {
        let loop = TestLoop()
        weak var released: NavigationStackWithModal?
        var navigator: CoordinatorNavigator<ShopNavigation>?
        do {
            let flow = NavigationStackWithModal(root: Screen("shop"), loop: loop)
            released = flow
            navigator = shopNavigator(flow, loop: loop)
        }
        #expect(released == nil)
        #expect(throws: NavigationError.unavailable(reason: "its navigation stack was released")) {
            try navigator?.navigate(.order(1))
        }
    }

    @Test func recordingNavigatorStillStandsInForTheCoordinatorNavigatorInViewModelTests() throws {
        let loop = TestLoop()
        let navigator = RecordingNavigator<ShopNavigation>()
        let model = ShopViewModel(navigator: navigator, loop: loop)

        #expect(model.open(order: 1_042))

        #expect(navigator.actions == [.order(1_042)])
        let bundle = try #require(navigator.actions.first?.bundle)
        #expect(try bundle.get(OrderBundle.orderID) == 1_042)
    }
}
