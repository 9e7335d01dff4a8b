import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import Testing

/// The coordinators' and data caches' own tests on a `TestLoop`, run unchanged under 100 seeds of each exploring
/// strategy: their loops take each run's schedule, so the posts, rounds and endings on the loop they cause run in
/// every order the schedules choose. (Tests of real threads, of tasks the runtime orders, and of the process-wide
/// inspector are not among them.) And two scenarios whose orders matter: a flow's answer and the user's pop due at one
/// instant, and two answers for one cache due at one instant.
@MainActor
@Suite("Coordinators under explored schedules")
struct CoordinatorsUnderSchedulesTests {
    nonisolated static let seeds: Range<UInt64> = 0..<100
    nonisolated static let strategies: [TestSchedule.Strategy] = [.random, .pct(depth: 3)]

    @Test(arguments: strategies)
    func theCoordinatorAndContainerTestsPassUnderEverySchedule(strategy: TestSchedule.Strategy) async {
        let result = await explore(seeds: Self.seeds, strategy: strategy) { _ in
            let coordinators = CoordinatorTests()
            coordinators.completeThenReleaseRunsCompletedOnceAndNeverCancelled()
            coordinators.aCoordinatorIsReleasedAndCancelledWhenItsLastScreenIsPopped()
            coordinators.aCoordinatorIsReleasedWhenItsModalIsDismissed()
            coordinators.aCoordinatorIsReleasedWhenItsTabIsRemoved()
            coordinators.childrenKnowTheirParentAndLiveWithTheirScreens()
            coordinators.aDelegatingCoordinatorHandsOffAndCancelsThePreviousChild()
            let containers = ContainerTests()
            containers.stackArithmetic()
            containers.hostsObserveTheTopScreen()
            containers.tabsSelectAddAndRemove()
            containers.presentingOverAModalDismissesTheOldOneFirst()
            let stacks = NavigationStackWithModalTests()
            stacks.resetClearsThePathAndDismissesTheModal()
            stacks.resetChangesTheStackFirstThenTheModalAsUpstreamDoes()
            stacks.resetReleasesAndCancelsTheCoordinatorsOfThePathAndOfTheModal()
            stacks.popWithAModalShownPopsTheStackUnderneathAndLeavesTheModal()
            let flows = FlowProviderTests()
            flows.aFlowPushesItsScreensAndEndingRemovesThemAndHandsBackOnce()
            flows.aFlowNeverPopsItsHostsScreens()
            let navigators = CoordinatorNavigatorTests()
            try navigators.aViewModelsActionPushesTheNextScreenWhoseViewModelReadsTheBundle()
            try navigators.aPresentActionPresentsTheNextScreenModallyWithItsStyle()
            navigators.popAndDismissActionsRemoveTheScreenTheyName()
            try navigators.aCoordinatorsNavigatorStartsAChildCoordinatorThatIsReleasedWithItsScreen()
            try navigators.aPresentedCoordinatorsNavigatorDismissesTheSlotItWasPresentedIn()
            Self.aFlowsAnswerAndThePopDueAtOneInstantFinishItOnceWhicheverComesFirst()
        }
        #expect(result.failingSeed == nil && result.isDeterministic)
        #expect(result.runs == Self.seeds.count + 2)
    }

    @Test(arguments: strategies)
    func theDataCacheTestsPassUnderEverySchedule(strategy: TestSchedule.Strategy) async {
        let result = await explore(seeds: Self.seeds, strategy: strategy) { _ in
            let caches = DataCacheTests()
            caches.theCacheHoldsItsInitialValueAndObserversGetItAtOnce()
            caches.updatingWithAnEqualModelStoresNothingAndNotifiesNoOne()
            caches.updatingAPropertyToTheValueItHasNotifiesNoOne()
            caches.aTransformThatSetsSeveralPropertiesNotifiesOnceAndOneThatChangesNothingNotifiesNoOne()
            caches.theObservableIsTheCacheSeenAsAnInitializedObservable()
            let posting = DataCachePostingTests()
            posting.aPostIsAppliedOnTheLoopNotAtOnce()
            posting.aPostThatChangesNothingNotifiesNoOne()
            posting.postingAfterTheLoopHasStoppedSaysSoAndAppliesNothing()
            Self.twoAnswersDueAtOneInstantBothReachTheCacheAndEachNotifiesOnce()
        }
        #expect(result.failingSeed == nil && result.isDeterministic)
    }

    /// A flow shows its screen on a stack; its answer (complete with "x") and the user's pop to the root are due at the
    /// same instant. Whichever runs first decides how it finishes — completed when the answer came first, cancelled
    /// when the pop released it — but it finishes exactly once, and the stack is back at its root.
    static func aFlowsAnswerAndThePopDueAtOneInstantFinishItOnceWhicheverComesFirst() {
        let loop = TestLoop()
        let log = Log()
        let stack = NavigationStack(root: Screen("home"), loop: loop)
        weak var weakFlow: StepsCoordinator?
        do {
            let flow = StepsCoordinator(steps: ["form"], log: log)
            weakFlow = flow
            flow.start(presentation: .push(stack))
            loop.schedule(after: .milliseconds(100)) { [weak flow] in flow?.complete(with: "x") }
        }
        loop.schedule(after: .milliseconds(100)) { stack.popToRoot() }
        loop.advance(by: .milliseconds(100))
        #expect(log.entries == ["completed x"] || log.entries == ["cancelled"], "\(log.entries)")
        #expect(weakFlow == nil, "released with its last screen")
        #expect(stack.screens.map(\.name) == ["home"])
    }

    /// A cache of a user and their books; the two answers are due at the same instant, each posting its part. Whatever
    /// the order, both parts end up in the cache and its observer saw each change once, the last one with both.
    static func twoAnswersDueAtOneInstantBothReachTheCacheAndEachNotifiesOnce() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        let seen = ObservedValues<Library>()
        let observation = cache.observe { seen.add($0) }
        loop.schedule(after: .milliseconds(100)) { _ = cache.post { $0.user = "ada" } }
        loop.schedule(after: .milliseconds(100)) { _ = cache.post { $0.books = [Book(1, "Notes")] } }
        loop.advance(by: .milliseconds(100))
        let both = Library(user: "ada", books: [Book(1, "Notes")])
        #expect(cache.value == both)
        #expect(seen.values.count == 3 && seen.values.last == both, "the initial value, then each answer once")
        observation.dispose()
    }
}
