import MainlineLoop
import MainlineTesting
import Testing

@testable import MainlineBindings

/// `ArrayModel`'s listeners (the data sources built on it): a mutation made by a listener while the listeners learn
/// another one is delivered in one more round, so every listener learns the changes in the order they were made.
@MainActor
@Suite("ArrayModel")
struct ArrayModelTests {
    private func path(_ row: Int) -> RowPath { RowPath(section: 0, row: row) }

    @Test func aMutationByAListenerReachesEveryListenerAfterTheOneBeingDelivered() {
        let model = ArrayModel(["a"])
        var first: [SingleChange] = []
        var second: [SingleChange] = []
        model.addListener { changes in
            first += changes.history
            if model.count == 2 { model.append("c") }
            return true
        }
        model.addListener { changes in
            second += changes.history
            return true
        }
        model.append("b")
        let expected: [SingleChange] = [.rowInserted(path(1)), .rowInserted(path(2))]
        #expect(first == expected)
        #expect(second == expected, "the listener after the mutating one learns b before c")
    }

    @Test func aListenerMutatingTheModelIsNotReentered() {
        let model = ArrayModel(["a"])
        var inside = false
        var reentered = false
        model.addListener { _ in
            if inside { reentered = true }
            inside = true
            if model.count == 2 { model.append("c") }
            inside = false
            return true
        }
        model.append("b")
        #expect(!reentered)
        #expect(model.elements == ["a", "b", "c"])
    }

    @Test func aListenerReturningFalseIsNotCalledAgain() {
        let model = ArrayModel(["a"])
        var calls = 0
        model.addListener { _ in
            calls += 1
            return false
        }
        model.append("b")
        model.append("c")
        #expect(calls == 1)
    }
}
