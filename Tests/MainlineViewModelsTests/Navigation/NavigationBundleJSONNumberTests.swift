import Foundation
import MainlineViewModels
import Testing

/// Numbers from outside the process (issue 13, item 2): a decoded date is finite, every number is in range for its
/// row, and a decoded bundle prints and equals itself. Rejections throw the typed error that names the row.
@Suite("NavigationBundle JSON numbers")
struct NavigationBundleJSONNumberTests {
    /// The error decoding `text` with `spec` throws, or `nil` if it decodes.
    func failure(_ text: String, _ spec: NavigationBundleSpec) -> NavigationBundleDecodingError? {
        do {
            _ = try NavigationBundle(json: Data(text.utf8), spec: spec)
            return nil
        } catch {
            return error
        }
    }

    func decode(_ text: String, _ spec: NavigationBundleSpec) throws -> NavigationBundle {
        try NavigationBundle(json: Data(text.utf8), spec: spec)
    }

    func spec<T>(_ type: NavigationBundleSpecType<T>) -> NavigationBundleSpec {
        SingleValueNavigationAction.spec(type)
    }

    static let nonFiniteSpellings = ["NaN", "Infinity", "-Infinity"]

    // MARK: Dates

    @Test(arguments: nonFiniteSpellings)
    func aNonFiniteDateIsRejectedNamingTheRow(_ spelling: String) {
        let row = NavigationBundleSpecRow("date", type: .date)
        #expect(
            failure(#"{"date": "\#(spelling)"}"#, NavigationBundleSpec("Reminder", rows: row))
                == .invalidValue(row: "date", expected: "Date", reason: #"found the string "\#(spelling)""#)
        )
    }

    @Test(arguments: nonFiniteSpellings)
    func aNonFiniteDateInAnOptionalArrayOrNestedRowIsRejectedNamingThePath(_ spelling: String) {
        #expect(
            failure(#"{"value": "\#(spelling)"}"#, spec(.optional(.date)))
                == .invalidValue(row: "value", expected: "Date?", reason: #"found the string "\#(spelling)""#)
        )
        #expect(
            failure(#"{"value": [0, "\#(spelling)"]}"#, spec(.array(.date)))
                == .invalidValue(row: "value[1]", expected: "Date", reason: #"found the string "\#(spelling)""#)
        )
        let inner = NavigationBundleSpec("Inner", rows: NavigationBundleSpecRow("at", type: .optional(.date)))
        #expect(
            failure(#"{"value": {"at": "\#(spelling)"}}"#, spec(.bundle(inner)))
                == .invalidValue(row: "value.at", expected: "Date?", reason: #"found the string "\#(spelling)""#)
        )
    }

    @Test(arguments: nonFiniteSpellings)
    func aNonFiniteDateInsideACodableValueIsRejectedNamingTheRow(_ spelling: String) throws {
        let error = try #require(
            failure(#"{"value": {"x": 1, "y": 2, "at": "\#(spelling)"}}"#, spec(.codable(Point.self)))
        )
        guard case .invalidValue(let row, let expected, let reason) = error else {
            Issue.record("expected invalidValue, got \(error)")
            return
        }
        #expect(row == "value")
        #expect(expected == "Codable(Point)")
        #expect(reason.contains("value.at"), "\(reason)")
        #expect(reason.contains("a date is a finite number of seconds since 1970"), "\(reason)")
    }

    @Test(arguments: nonFiniteSpellings)
    func aNonFiniteDateInACodableMapOrListIsRejectedNamingTheRow(_ spelling: String) {
        #expect(
            failure(#"{"value": {"due": 0, "late": "\#(spelling)"}}"#, spec(.codable([String: Date].self)))?.row
                == "value"
        )
        #expect(failure(#"{"value": [0, "\#(spelling)"]}"#, spec(.optional(.codable([Date].self))))?.row == "value")
    }

    @Test func aDateDecodedFromAnyFiniteNumberPrintsAndEqualsItself() throws {
        for seconds in ["0", "-1e308", "1.7976931348623157e308", "1e15", "-62135596800"] {
            let bundle = try decode(#"{"value": \#(seconds)}"#, spec(.date))
            #expect(bundle == bundle, "\(seconds)")
            #expect(!"\(bundle)".isEmpty)
        }
    }

    // MARK: Floating point

    @Test func aNumberBeyondAFloatRowsRangeIsRejectedInsteadOfBecomingInfinite() {
        for number in ["1e39", "-1e39", "3.5e38"] {
            #expect(failure(#"{"value": \#(number)}"#, spec(.float))?.row == "value", "\(number)")
        }
        #expect(failure(#"{"value": [1, 1e39]}"#, spec(.array(.float)))?.row == "value[1]")
        #expect(failure(#"{"value": -1e39}"#, spec(.optional(.float)))?.row == "value")
    }

    @Test func floatAndDoubleRowsKeepTheirNonFiniteSpellings() throws {
        #expect(try decode(#"{"value": "Infinity"}"#, spec(.float)).get(.float) == .infinity)
        #expect(try decode(#"{"value": "-Infinity"}"#, spec(.double)).get(.double) == -.infinity)
        #expect(try decode(#"{"value": "NaN"}"#, spec(.optional(.double))).get(.optional(.double))?.isNaN == true)
        #expect(try decode(#"{"value": 3.4028235e38}"#, spec(.float)).get(.float) == .greatestFiniteMagnitude)
    }

    @Test func aBundleHoldingNaNEqualsItselfAndPrints() throws {
        let spellings = #"{"value": ["NaN", 1, "Infinity"]}"#
        let doubles = try decode(spellings, spec(.array(.double)))
        #expect(doubles == doubles)
        #expect(try decode(spellings, spec(.array(.double))) == doubles, "two decodings of one payload are equal")
        #expect("\(doubles)".contains("nan"))
        let float = try decode(#"{"value": "NaN"}"#, spec(.float))
        #expect(float == float)
        #expect(float != (try decode(#"{"value": 1}"#, spec(.float))))
    }

    // MARK: Integers

    @Test func anIntegerOutOfItsRowsRangeIsRejectedNeverWrapped() {
        let cases: [(String, NavigationBundleSpec)] = [
            ("128", spec(.int8)),
            ("-129", spec(.int8)),
            ("256", spec(.uint8)),
            ("-1", spec(.uint16)),
            ("2147483648", spec(.int32)),
            ("4294967296", spec(.uint32)),
            ("9223372036854775808", spec(.int64)),
            ("-9223372036854775809", spec(.int)),
            ("18446744073709551616", spec(.uint64)),
            ("1e30", spec(.int)),
            ("1e400", spec(.int64)),
        ]
        for (number, spec) in cases {
            #expect(failure(#"{"value": \#(number)}"#, spec)?.row == "value", "\(number) as \(spec)")
        }
        #expect(failure(#"{"value": [1, 70000]}"#, spec(.array(.optional(.int16))))?.row == "value[1]")
    }

    @Test func integersAtTheEndsOfTheirRangesAreAccepted() throws {
        #expect(try decode(#"{"value": -128}"#, spec(.int8)).get(.int8) == .min)
        #expect(try decode(#"{"value": 18446744073709551615}"#, spec(.uint64)).get(.uint64) == .max)
        #expect(try decode(#"{"value": 1e2}"#, spec(.uint8)).get(.uint8) == 100)
    }
}
