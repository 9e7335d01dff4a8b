import Foundation
import MainlineViewModels
import Testing

/// `SingleValueNavigationAction`: one value in a bundle of one row.
@Suite("SingleValueNavigationAction")
struct SingleValueNavigationActionTests {
    @Test func theBundleHoldsTheValueUnderTheValueRow() throws {
        let action = SingleValueNavigationAction(Everything.somePoint, type: .codable())
        let bundle = try #require(action.bundle)
        #expect(try bundle.get(.codable(Point.self)) == Everything.somePoint)
        #expect(try bundle.get(SingleValueNavigationAction.row(.codable(Point.self))) == Everything.somePoint)
        #expect(bundle.spec == SingleValueNavigationAction.spec(.codable(Point.self)))
        #expect(bundle.spec.name == "SingleValue(Codable(Point))")
    }

    @Test func readingItWithAnotherTypeThrowsWrongType() throws {
        let bundle = try #require(SingleValueNavigationAction(42, type: .int).bundle)
        #expect(throws: NavigationBundleGetError.wrongType(row: "value", expected: "Int64", found: "Int")) {
            try bundle.get(.int64)
        }
    }

    @Test func itTravelsAsAnObjectWithAValueKey() throws {
        let bundle = try #require(SingleValueNavigationAction([1, 2], type: .array(.uint8)).bundle)
        #expect(String(decoding: try bundle.jsonData(), as: UTF8.self) == #"{"value":[1,2]}"#)
        let decoded = try NavigationBundle(
            json: Data(#"{"value":[3]}"#.utf8),
            spec: SingleValueNavigationAction.spec(.array(.uint8))
        )
        #expect(try decoded.get(.array(.uint8)) == [3])
    }

    @Test func actionsAreEqualWhenTheirValuesAndTypesAre() {
        #expect(SingleValueNavigationAction("a", type: .string) == SingleValueNavigationAction("a", type: .string))
        #expect(SingleValueNavigationAction("a", type: .string) != SingleValueNavigationAction("b", type: .string))
        #expect(SingleValueNavigationAction(1, type: .int) != SingleValueNavigationAction(1, type: .codable(Int.self)))
        #expect(
            Set([SingleValueNavigationAction(1, type: .int), SingleValueNavigationAction(1, type: .int)]).count == 1
        )
    }
}
