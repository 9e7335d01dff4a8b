import Foundation
import MainlineLoop
import MainlineTesting
import MainlineViewModels
import Testing

/// `NavigationBundleSpec`, its rows and their types: identity, descriptions, and the misuse they report.
@Suite("NavigationBundleSpec")
struct NavigationBundleSpecTests {
    @Test func rowsKeepTheirOrderAndAreFoundByKey() {
        #expect(Address.spec.rows.map(\.key) == ["street", "number"])
        #expect(Address.spec.row(forKey: "number") == AnyNavigationBundleSpecRow(Address.number))
        #expect(Address.spec.row(forKey: "city") == nil)
        #expect(Address.spec.contains(Address.street))
        #expect(!Address.spec.contains(NavigationBundleSpecRow("street", type: .int)), "same key, another type")
        #expect(!Address.spec.contains(Everything.unit))
    }

    @Test func aSecondRowWithTheSameKeyIsReportedAndLeftOut() {
        let diagnostics = DiagnosticsRecorder()
        let spec = diagnostics.record {
            NavigationBundleSpec("Twice", rows: Address.street, NavigationBundleSpecRow("street", type: .int))
        }
        #expect(diagnostics.kinds == [.navigationBundleDuplicateRow])
        #expect(diagnostics.diagnostics.first?.message.contains(#"two rows with the key "street""#) == true)
        #expect(spec.rows == [AnyNavigationBundleSpecRow(Address.street)])
    }

    @Test func specsAreEqualWhenTheirNamesAndRowsAre() {
        #expect(Address.spec == NavigationBundleSpec("Address", rows: Address.street, Address.number))
        #expect(Address.spec != NavigationBundleSpec("Address", rows: Address.number, Address.street), "order counts")
        #expect(Address.spec != NavigationBundleSpec("Place", rows: Address.street, Address.number))
        #expect(Address.spec != NavigationBundleSpec("Address", rows: Address.street))
        #expect(
            Address.spec
                == NavigationBundleSpec(
                    "Address",
                    rows: [AnyNavigationBundleSpecRow(Address.street), AnyNavigationBundleSpecRow(Address.number)]
                )
        )
    }

    @Test func specTypesAreEqualWhenTheyDescribeTheSameType() {
        #expect(NavigationBundleSpecType<[Int]>.array(.int) == .array(.int))
        #expect(NavigationBundleSpecType<NavigationBundle>.bundle(Address.spec) == .bundle(Address.spec))
        let other = NavigationBundleSpec("Address", rows: Address.street)
        #expect(NavigationBundleSpecType<NavigationBundle>.bundle(Address.spec) != .bundle(other))
        #expect(NavigationBundleSpecType<Point>.codable() == .codable(Point.self))
        #expect(
            AnyNavigationBundleSpecRow(NavigationBundleSpecRow("a", type: .int))
                != AnyNavigationBundleSpecRow(NavigationBundleSpecRow("a", type: .int64))
        )
    }

    @Test func descriptionsNameTheTypes() {
        #expect(Everything.maybeInts.description == "maybeInts: [Int32?]")
        #expect(Everything.matrix.type.description == "[[Double]]")
        #expect(Everything.previous.type.description == "NavigationBundle(Address)?")
        #expect(Everything.points.type.description == "[Codable(Point)]")
        #expect(Everything.unit.type.description == "Unit")
        #expect(AnyNavigationBundleSpecRow(Everything.date).typeDescription == "Date")
        #expect(Address.spec.description == "Address(street: String, number: Int?)")
        #expect(AnyNavigationBundleSpecRow(Address.number).isOptional)
        #expect(!AnyNavigationBundleSpecRow(Address.street).isOptional)
        #expect(Address.number.value(3).description == "Optional(3) as Int?")
    }

    @Test func aRowMatchesAsACasePatternOnlyItself() {
        func name(_ row: AnyNavigationBundleSpecRow) -> String {
            switch row {
            case Address.street: "street"
            case Address.number: "number"
            default: "other"
            }
        }
        #expect(Address.spec.rows.map(name) == ["street", "number"])
        #expect(name(AnyNavigationBundleSpecRow(NavigationBundleSpecRow("street", type: .int))) == "other")
    }

    @Test func anOptionalOfAnOptionalIsReported() {
        let diagnostics = DiagnosticsRecorder()
        let type = diagnostics.record { NavigationBundleSpecType<Int??>.optional(.optional(.int)) }
        #expect(diagnostics.kinds == [.navigationBundleNestedOptional])
        #expect(type.description == "Int??")
    }

    @Test func valuesAreEqualWhenTheirTypesAndContentsAre() {
        #expect(Everything.int.value(1) == Everything.int.value(1))
        #expect(Everything.int.value(1) != Everything.int.value(2))
        #expect(Everything.int.value(1) != Everything.int64.value(1), "same number, another type")
    }

    @Test func misuseTrapsByDefaultInDebugBuildsWithAMessageNamingTheRow() async {
        guard Diagnostics.trapsByDefault else { return }  // release builds log and carry on
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Address.spec.toBundle { _ in nil }
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(standardError.contains("Mainline misuse [navigation-bundle-missing-value]"))
        #expect(standardError.contains("got no value for row street: String, which is not optional"))
    }
}
