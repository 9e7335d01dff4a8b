import Foundation
import MainlineLoop
import MainlineTesting
import MainlineViewModels
import Testing

/// `NavigationBundleSpec.toBundle` and `NavigationBundle.get`: typed values back, rows of other specs, values of
/// the wrong type, and the misuse `toBundle` reports (spec/observables-and-viewmodels.md, "Navigation").
@Suite("NavigationBundle")
struct NavigationBundleTests {
    /// Another spec, with a row keyed like one of `Address` but of another type, one keyed and typed like one of
    /// `Address`, and one whose key `Address` lacks.
    enum Other {
        static let street = NavigationBundleSpecRow("street", type: .int)
        static let number = NavigationBundleSpecRow("number", type: .optional(.int))
        static let city = NavigationBundleSpecRow("city", type: .string)
    }

    @Test func getReturnsEachRowsValueWithTheRowsType() throws {
        let bundle = Everything.bundle()
        try #require(bundle.get(Everything.unit) == ())
        #expect(try bundle.get(Everything.bool) == true)
        #expect(try bundle.get(Everything.int) == .min)
        #expect(try bundle.get(Everything.int8) == .min)
        #expect(try bundle.get(Everything.int16) == .max)
        #expect(try bundle.get(Everything.int32) == .min)
        #expect(try bundle.get(Everything.int64) == .max)
        #expect(try bundle.get(Everything.uint) == .max)
        #expect(try bundle.get(Everything.uint8) == .max)
        #expect(try bundle.get(Everything.uint16) == .max)
        #expect(try bundle.get(Everything.uint32) == .max)
        #expect(try bundle.get(Everything.uint64) == .max)
        #expect(try bundle.get(Everything.float) == .leastNonzeroMagnitude)
        #expect(try bundle.get(Everything.double) == 0.1)
        #expect(try bundle.get(Everything.date) == Everything.someDate)
        #expect(try bundle.get(Everything.ints) == [3, -1, 0])
        #expect(try bundle.get(Everything.maybeInts) == [1, nil, 3])
        #expect(try bundle.get(Everything.presentNote) == "note")
        #expect(try bundle.get(Everything.address).get(Address.street) == "Main Street")
        #expect(try bundle.get(Everything.previous)?.get(Address.number) == .some(nil))
        #expect(try bundle.get(Everything.stops).map { try $0.get(Address.street) } == ["A", "B"])
        #expect(try bundle.get(Everything.point) == Everything.somePoint)
        #expect(try bundle.get(Everything.opaque).tags == ["a", "b"])
    }

    @Test func anOptionalRowLeftOutHoldsNil() throws {
        let bundle = Everything.bundle()
        let note: String? = try bundle.get(Everything.absentNote)
        #expect(note == nil)
    }

    @Test func aRowWhoseKeyTheSpecLacksThrowsRowNotInBundleNamingTheRowAndSpec() {
        let bundle = Address.bundle("Main Street", 12)
        #expect(throws: NavigationBundleGetError.rowNotInBundle(row: "city", spec: "Address")) {
            try bundle.get(Other.city)
        }
        #expect(throws: NavigationBundleGetError.rowNotInBundle(row: "unit", spec: "Address")) {
            try bundle.get(Everything.unit)
        }
    }

    @Test func aRowOfAnotherSpecWithTheSameKeyButAnotherTypeThrowsWrongType() {
        let bundle = Address.bundle("Main Street", 12)
        #expect(throws: NavigationBundleGetError.wrongType(row: "street", expected: "Int", found: "String")) {
            try bundle.get(Other.street)
        }
    }

    @Test func aRowOfTheSameSwiftTypeButAnotherSpecTypeThrowsWrongType() throws {
        let int = try #require(SingleValueNavigationAction(3, type: .int).bundle)
        #expect(throws: NavigationBundleGetError.wrongType(row: "value", expected: "Codable(Int)", found: "Int")) {
            try int.get(.codable(Int.self))
        }
        let optional = try #require(SingleValueNavigationAction(3, type: .optional(.int)).bundle)
        #expect(throws: NavigationBundleGetError.wrongType(row: "value", expected: "Int", found: "Int?")) {
            try optional.get(.int)
        }
    }

    @Test func aRowOfAnotherSpecWithTheSameKeyAndTypeIsTheSameRow() throws {
        let bundle = Address.bundle("Main Street", 12)
        #expect(try bundle.get(Other.number) == 12)
    }

    @Test func getErrorsDescribeTheRow() {
        let notThere = NavigationBundleGetError.rowNotInBundle(row: "city", spec: "Address")
        #expect(notThere.row == "city")
        #expect(notThere.description == "The bundle of spec \"Address\" holds no row \"city\".")
        let wrong = NavigationBundleGetError.wrongType(row: "street", expected: "Int", found: "String")
        #expect(wrong.row == "street")
        #expect(
            wrong.description == "Row \"street\" was read as Int, but the bundle holds a value of type String for it."
        )
    }

    @Test func aValueOfAnotherTypeFromToBundleIsReportedAndReadingItThrowsWrongType() throws {
        let diagnostics = DiagnosticsRecorder()
        let bundle = diagnostics.record {
            Address.spec.toBundle { row in
                switch row {
                case Address.street: Other.street.value(7)  // an Int for a String row
                default: nil
                }
            }
        }
        #expect(diagnostics.kinds == [.navigationBundleValueMismatch])
        let message = try #require(diagnostics.diagnostics.first?.message)
        #expect(message.contains("got a value of type Int for row street: String"))
        #expect(throws: NavigationBundleGetError.wrongType(row: "street", expected: "String", found: "Int")) {
            try bundle.get(Address.street)
        }
        #expect(
            throws: NavigationBundleGetError.wrongType(row: "street", expected: "Int", found: "String"),
            "a row of the value's type is still not the spec's row"
        ) { try bundle.get(Other.street) }
    }

    @Test func aValueOfAnotherTypeIsNotReadEvenWhenItWouldCast() {
        let count = NavigationBundleSpecRow("count", type: .int)
        let diagnostics = DiagnosticsRecorder()
        let bundle = diagnostics.record {
            NavigationBundleSpec("Counter", rows: count).toBundle { _ in Other.number.value(3) }  // an Int?
        }
        #expect(diagnostics.kinds == [.navigationBundleValueMismatch])
        #expect(throws: NavigationBundleGetError.wrongType(row: "count", expected: "Int", found: "Int?")) {
            try bundle.get(count)
        }
    }

    @Test func noValueForARowThatIsNotOptionalIsReportedAndTheRowIsNotInTheBundle() throws {
        let diagnostics = DiagnosticsRecorder()
        let bundle = diagnostics.record { Address.spec.toBundle { _ in nil } }
        #expect(diagnostics.kinds == [.navigationBundleMissingValue], "street only: number is optional")
        #expect(diagnostics.diagnostics.first?.message.contains("row street: String") == true)
        #expect(throws: NavigationBundleGetError.rowNotInBundle(row: "street", spec: "Address")) {
            try bundle.get(Address.street)
        }
        #expect(try bundle.get(Address.number) == nil)
    }

    @Test func aNestedBundleOfAnotherSpecIsReported() {
        let other = NavigationBundleSpec("Other", rows: Other.city)
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record {
            _ = Everything.address.value(other.toBundle { _ in Other.city.value("Paris") })
        }
        #expect(diagnostics.kinds == [.navigationBundleValueMismatch])
        #expect(
            diagnostics.diagnostics.first?.message.contains(
                "it is a bundle of Other(city: String), not of Address(street: String, number: Int?)"
            ) == true
        )
    }

    @Test func toBundleAsksForEachRowOnceInSpecOrder() {
        var asked: [String] = []
        _ = Address.spec.toBundle { row in
            asked.append(row.key)
            return row == AnyNavigationBundleSpecRow(Address.street) ? Address.street.value("x") : nil
        }
        #expect(asked == ["street", "number"])
    }

    @Test func anErrorThrownWhileBuildingPropagatesWithItsType() {
        struct NoStreet: Error, Equatable {}
        #expect(throws: NoStreet()) {
            try Address.spec.toBundle { (_) throws(NoStreet) -> NavigationBundleValue? in throw NoStreet() }
        }
    }

    @Test func bundlesAreEqualWhenTheirSpecsAndValuesAre() {
        #expect(Everything.bundle() == Everything.bundle())
        #expect(Address.bundle("A", 1) == Address.bundle("A", 1))
        #expect(Address.bundle("A", 1) != Address.bundle("A", 2))
        #expect(Address.bundle("A", nil) != Address.bundle("A", 0))
        #expect(Set([Address.bundle("A", 1), Address.bundle("A", 1), Address.bundle("B", 1)]).count == 2)
    }

    @Test func codableValuesThatAreNotEquatableCompareByTheirJSON() {
        let opaque = NavigationBundleSpec("Opaque", rows: Everything.opaque)
        func bundle(_ tags: [String]) -> NavigationBundle {
            opaque.toBundle { _ in Everything.opaque.value(Opaque(tags: tags)) }
        }
        #expect(bundle(["a"]) == bundle(["a"]))
        #expect(bundle(["a"]) != bundle(["b"]))
    }

    @Test func theDescriptionListsEachRowsValue() {
        #expect(Address.bundle("Main Street", nil).description == "Address(street: Main Street, number: nil)")
    }
}
