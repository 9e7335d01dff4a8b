import MainlineLoop
import MainlineObservables
import MainlineTesting
import MainlineViewModels
import Testing

@MainActor
final class Connection {
    var log: [String] = []
}

@MainActor
final class Writer: LifecycleSubscribable {
    weak var host: Connection?
    func subscribe(_ host: AnyObject) { self.host = host as? Connection }
    func unsubscribe() { host = nil }
}

@MainActor
final class SessionViewModel: BaseViewModel, LifecycleSubscribableViewModel {
    let writer = Writer()
    let outgoing: InitializedSubject<String>
    var lifecycleSubscribables: [LifecycleSubscribable] { [writer] }

    override init(loop: any Loop) {
        // Never the default loop in tests: disposing an observation posts its removal to the subject's loop, and a
        // post to an idle MainLoop.main attaches it (the guest-mode suite counts live main loops).
        outgoing = subjectOf("hello", loop: loop)
        super.init(loop: loop)
    }
}

/// `LifecycleManager`: a host's visibility drives the view model.
@MainActor
@Suite("LifecycleManager")
struct LifecycleManagerTests {
    @Test func appearResumesAndDisappearDisposesTheSpansDisposablesAndPauses() {
        let loop = TestLoop()
        let connection = Connection()
        let viewModel = SessionViewModel(loop: loop)
        let manager = LifecycleManager(viewModel: viewModel, host: connection) { viewModel in
            [viewModel.outgoing.observe { connection.log.append($0) }]
        }
        manager.hostDidAppear()
        #expect(viewModel.state == .resumed)
        #expect(viewModel.writer.host === connection, "dependencies subscribed to the host")
        viewModel.outgoing.value = "one"
        manager.hostDidDisappear()
        #expect(viewModel.state == .paused)
        #expect(viewModel.writer.host == nil, "and unsubscribed")
        viewModel.outgoing.value = "two"
        #expect(connection.log == ["hello", "one"], "the span's observation was disposed on disappear")
        manager.hostDidAppear()
        #expect(connection.log == ["hello", "one", "two"], "a new span observes afresh")
        manager.unbind()
    }

    @Test func unbindClearsTheViewModelOnce() {
        let loop = TestLoop()
        let viewModel = LoggingViewModel(loop: loop)
        let manager = LifecycleManager(viewModel: viewModel, host: Connection())
        manager.hostDidAppear()
        manager.unbind()
        manager.unbind()
        manager.hostDidAppear()
        #expect(viewModel.state == .cleared)
        #expect(viewModel.log.filter { $0 == "cleared" }.count == 1)
        #expect(manager.isUnbound && !manager.isHostVisible)
    }
}
