import MainlineObservables
import Testing

@Suite("ObservableOptional")
struct ObservableOptionalTests {
    @Test func nothingIsNotANilValueAndAllNothingsAreEqual() {
        let nothing: ObservableOptional<String?> = .nothing
        let nilValue: ObservableOptional<String?> = .value(nil)
        #expect(nothing != nilValue)
        #expect(nothing == .nothing)
        #expect(nilValue == .value(nil))
        #expect(ObservableOptional<Int>.value(1) != .value(2))
        #expect(nothing.isNothing && !nilValue.isNothing)
        #expect(nothing.valueOrNil == nil)
        #expect(ObservableOptional<Int>.value(3).valueOrNil == 3)
    }
}
