import MainlineBindings
import MainlineTesting
import Observation
import Testing

@MainActor
final class ProfileViewModel: ModelBindable {
    let binder: KeyPathBinder
    var title = ""
    var badge = ""
    var model: Profile? {
        didSet { binder.rebind(self, from: oldValue, to: model) }
    }

    static let modelBindings: [ModelBinding<ProfileViewModel, Profile>] = [
        ModelBinding(\.name) { viewModel, name in viewModel.title = name },
        ModelBinding(\.unread) { viewModel, unread in viewModel.badge = unread > 0 ? "\(unread)" : "" },
    ]

    init(binder: KeyPathBinder) { self.binder = binder }
}

/// A view model's `modelBindings` table: bind, unbind, rebind on model change (upstream's `setModel`).
@MainActor
@Suite("ModelBinding tables")
struct ModelBindingTests {
    @Test func settingAModelBindsEveryRowOfTheTable() {
        let loop = TestLoop()
        let viewModel = ProfileViewModel(binder: KeyPathBinder(loop: loop))
        let ada = Profile(name: "Ada")
        ada.unread = 2
        viewModel.model = ada
        #expect(viewModel.title == "Ada")
        #expect(viewModel.badge == "2")
        #expect(viewModel.binder.count == 2)
        ada.unread = 0
        loop.runUntilIdle()
        #expect(viewModel.badge == "")
    }

    @Test func rebindingOnModelChangeDropsTheOldModelsBindings() {
        let loop = TestLoop()
        let viewModel = ProfileViewModel(binder: KeyPathBinder(loop: loop))
        let ada = Profile(name: "Ada")
        let grace = Profile(name: "Grace")
        viewModel.model = ada
        viewModel.model = grace
        #expect(viewModel.title == "Grace")
        #expect(viewModel.binder.count == 2)
        ada.name = "Ada Lovelace"
        loop.runUntilIdle()
        #expect(viewModel.title == "Grace", "the old model no longer reaches the view model")
        grace.name = "Grace Hopper"
        loop.runUntilIdle()
        #expect(viewModel.title == "Grace Hopper")
        viewModel.model = nil
        #expect(viewModel.binder.count == 0)
        grace.name = "G"
        loop.runUntilIdle()
        #expect(viewModel.title == "Grace Hopper")
    }

    @Test func bindingTheTableTwiceToOneModelIsReported() {
        let loop = TestLoop()
        let binder = KeyPathBinder(loop: loop)
        let viewModel = ProfileViewModel(binder: binder)
        let ada = Profile(name: "Ada")
        binder.bind(viewModel, to: ada)
        let diagnostics = DiagnosticsRecorder()
        let again = diagnostics.record { binder.bind(viewModel, to: ada) }
        #expect(!again)
        #expect(diagnostics.kinds == [.bindingAddedTwice, .bindingAddedTwice])
        #expect(binder.count == 2)
    }
}
