import Foundation
import MainlineViewModels
import Testing

/// Bundles as JSON: round trips for every spec type, the documented forms, and malformed payloads that name the row
/// and what was expected (spec/observables-and-viewmodels.md, "Navigation"; routes carry bundles this way).
@Suite("NavigationBundle JSON")
struct NavigationBundleJSONTests {
    /// `bundle` written as JSON and read back with its own spec.
    func roundTrip(_ bundle: NavigationBundle) throws -> NavigationBundle {
        try NavigationBundle(json: bundle.jsonData(), spec: bundle.spec)
    }

    func json(_ bundle: NavigationBundle) throws -> String {
        String(decoding: try bundle.jsonData(), as: UTF8.self)
    }

    func decode(_ text: String, _ spec: NavigationBundleSpec) throws(NavigationBundleDecodingError) -> NavigationBundle
    {
        try NavigationBundle(json: Data(text.utf8), spec: spec)
    }

    /// A bundle of one row holding `value`.
    func single<T>(_ type: NavigationBundleSpecType<T>, _ value: T) -> NavigationBundle {
        SingleValueNavigationAction(value, type: type).bundle!
    }

    // MARK: Round trips

    @Test func aBundleWithEverySpecTypeRoundTrips() throws {
        let bundle = Everything.bundle()
        let decoded = try roundTrip(bundle)
        #expect(decoded == bundle)
        #expect(try decoded.get(Everything.point) == Everything.somePoint)
        #expect(try decoded.get(Everything.opaque).tags == ["a", "b"])
        #expect(try decoded.get(Everything.stops)[1].get(Address.number) == nil)
        #expect(try json(decoded) == json(bundle), "equal bundles write equal bytes")
    }

    @Test func integersRoundTripAtTheEndsOfTheirRanges() throws {
        func check<T: FixedWidthInteger & Sendable>(_ type: NavigationBundleSpecType<T>) throws {
            for value in [T.min, T.max, 0] {
                #expect(try roundTrip(single(type, value)).get(type) == value, "\(type) \(value)")
            }
        }
        try check(.int)
        try check(.int8)
        try check(.int16)
        try check(.int32)
        try check(.int64)
        try check(.uint)
        try check(.uint8)
        try check(.uint16)
        try check(.uint32)
        try check(.uint64)
        #expect(try json(single(.uint64, .max)) == #"{"value":18446744073709551615}"#)
        #expect(try json(single(.int64, .min)) == #"{"value":-9223372036854775808}"#)
    }

    @Test func floatingPointValuesRoundTripBitForBit() throws {
        let doubles: [Double] = [
            0.1, -0.0, 1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .pi, .infinity, -.infinity,
        ]
        for value in doubles {
            let back = try roundTrip(single(.double, value)).get(.double)
            #expect(back.bitPattern == value.bitPattern, "\(value)")
        }
        let floats: [Float] = [0.1, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .ulpOfOne, -.infinity]
        for value in floats {
            let back = try roundTrip(single(.float, value)).get(.float)
            #expect(back.bitPattern == value.bitPattern, "\(value)")
        }
        #expect(try roundTrip(single(.double, .nan)).get(.double).isNaN)
        #expect(try roundTrip(single(.float, .nan)).get(.float).isNaN)
    }

    @Test func nonFiniteNumbersAreWrittenAsStrings() throws {
        #expect(try json(single(.double, .nan)) == #"{"value":"NaN"}"#)
        #expect(try json(single(.double, .infinity)) == #"{"value":"Infinity"}"#)
        #expect(try json(single(.float, -.infinity)) == #"{"value":"-Infinity"}"#)
        #expect(try json(single(.float, 0.1)) == #"{"value":0.1}"#)
    }

    @Test func datesAreSecondsSince1970AndRoundTripExactly() throws {
        #expect(try json(single(.date, Everything.someDate)) == #"{"value":1700000000.25}"#)
        let dates = [
            Everything.someDate,
            Date(timeIntervalSince1970: 0),
            Date(timeIntervalSince1970: -1_000_000_000),  // 1938: a whole number of seconds
            Date(timeIntervalSince1970: 1_234_567_890.123_456),  // 2009, with microseconds
            Date(timeIntervalSince1970: 1_900_000_000.000_001),  // 2030
            Date(timeIntervalSinceReferenceDate: 0),
            .distantPast,
            .distantFuture,
        ]
        for date in dates {
            let back = try roundTrip(single(.date, date)).get(.date)
            #expect(back == date, "\(date.timeIntervalSince1970)")
            #expect(back.timeIntervalSinceReferenceDate.bitPattern == date.timeIntervalSinceReferenceDate.bitPattern)
        }
        #expect(
            try decode(#"{"value": 86400}"#, SingleValueNavigationAction.spec(.date)).get(.date)
                == Date(timeIntervalSince1970: 86_400)
        )
    }

    @Test func aDateOfAnyEraComesBackWithinAQuarterMicrosecond() throws {
        // `Date()` counts from 2001, so its seconds since 1970 are rounded once.
        let now = Date()
        let back = try roundTrip(single(.date, now)).get(.date)
        #expect(abs(back.timeIntervalSince(now)) < 0.000_000_25)
    }

    @Test func stringsRoundTripWithEscapesAndUnicode() throws {
        let text = "Grüße, \"quoted\" \\ / \u{0} \u{1F} tab\t 🎉 \u{FFFF}"
        #expect(try roundTrip(single(.string, text)).get(.string) == text)
        #expect(try roundTrip(single(.string, "")).get(.string) == "")
    }

    @Test func arraysRoundTripEmptyNestedAndWithNils() throws {
        #expect(try roundTrip(single(.array(.int), [])).get(.array(.int)) == [])
        let matrix: [[String]] = [["a"], [], ["b", "c"]]
        #expect(try roundTrip(single(.array(.array(.string)), matrix)).get(.array(.array(.string))) == matrix)
        let withNils: [Bool?] = [true, nil, false]
        #expect(try roundTrip(single(.array(.optional(.bool)), withNils)).get(.array(.optional(.bool))) == withNils)
        #expect(try json(single(.array(.optional(.bool)), withNils)) == #"{"value":[true,null,false]}"#)
        let dates = [Everything.someDate, Date(timeIntervalSince1970: 0)]
        #expect(try roundTrip(single(.array(.date), dates)).get(.array(.date)) == dates)
    }

    @Test func optionalsRoundTripPresentAndAbsent() throws {
        #expect(try roundTrip(single(.optional(.int), 5)).get(.optional(.int)) == 5)
        #expect(try roundTrip(single(.optional(.int), nil)).get(.optional(.int)) == nil)
        #expect(try json(single(.optional(.int), nil)) == #"{"value":null}"#)
        let spec = SingleValueNavigationAction.spec(.optional(.int))
        #expect(try decode("{}", spec).get(.optional(.int)) == nil, "a missing key means nil")
        #expect(try decode(#"{"value": null}"#, spec).get(.optional(.int)) == nil)
        let optionalArray: [Int]? = [1, 2]
        #expect(try roundTrip(single(.optional(.array(.int)), optionalArray)).get(.optional(.array(.int))) == [1, 2])
    }

    @Test func nestedBundlesRoundTripTwoLevelsDeep() throws {
        let trip = NavigationBundleSpec("Trip", rows: Everything.address, Everything.previous)
        let outer = NavigationBundleSpecRow("trip", type: .bundle(trip))
        let bundle = NavigationBundleSpec("Outer", rows: outer).toBundle { _ in
            outer.value(
                trip.toBundle { row in
                    switch row {
                    case Everything.address: Everything.address.value(Address.bundle("Main Street", 12))
                    default: nil
                    }
                }
            )
        }
        #expect(
            try json(bundle) == #"{"trip":{"address":{"number":12,"street":"Main Street"},"previous":null}}"#
        )
        let back = try roundTrip(bundle)
        #expect(back == bundle)
        #expect(try back.get(outer).get(Everything.address).get(Address.number) == 12)
        #expect(try back.get(outer).get(Everything.previous) == nil)
    }

    @Test func codableValuesRoundTripWithTheDocumentedDateAndNumberForms() throws {
        struct Reading: Codable, Equatable, Sendable {
            var at: Date
            var value: Double
        }
        let reading = Reading(at: Date(timeIntervalSince1970: 10.5), value: .infinity)
        let bundle = single(.codable(Reading.self), reading)
        #expect(try json(bundle) == #"{"value":{"at":10.5,"value":"Infinity"}}"#)
        #expect(try roundTrip(bundle).get(.codable(Reading.self)) == reading)
    }

    @Test func theUnitRowIsAnEmptyObject() throws {
        let bundle = single(.unit, ())
        #expect(try json(bundle) == #"{"value":{}}"#)
        #expect(try roundTrip(bundle) == bundle)
    }

    @Test func keysTheSpecDoesNotListAreIgnored() throws {
        let bundle = try decode(#"{"street": "Main Street", "city": "Paris"}"#, Address.spec)
        #expect(bundle == Address.bundle("Main Street", nil))
    }

    @Test func aBundleEmbeddedInARoutesCodableTypeDecodesWithItsSpec() throws {
        struct Item: Decodable {
            let id: String
            let data: NavigationBundle
            enum CodingKeys: CodingKey { case id, data }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(String.self, forKey: .id)
                data = try container.decode(NavigationBundle.self, forKey: .data, configuration: Address.spec)
            }
        }
        let item = try JSONDecoder().decode(Item.self, from: Data(#"{"id": "a", "data": {"street": "X"}}"#.utf8))
        #expect(item.data == Address.bundle("X", nil))
        #expect(throws: NavigationBundleDecodingError.missingRow(row: "street", expected: "String")) {
            try JSONDecoder().decode(Item.self, from: Data(#"{"id": "a", "data": {}}"#.utf8))
        }
    }

    @Test func theBundlesOwnRowsIgnoreTheStrategiesOfAnEncoderThatEmbedsIt() throws {
        let spec = NavigationBundleSpec("Reading", rows: Everything.double, Everything.date)
        let bundle = spec.toBundle { row in
            switch row {
            case Everything.double: Everything.double.value(-.infinity)
            default: Everything.date.value(Everything.someDate)
            }
        }
        let plain = JSONEncoder()  // throws on non-finite numbers, writes dates as seconds since 2001
        plain.outputFormatting = .sortedKeys
        let data = try plain.encode(bundle)
        #expect(String(decoding: data, as: UTF8.self) == #"{"date":1700000000.25,"double":"-Infinity"}"#)
        #expect(try JSONDecoder().decode(NavigationBundle.self, from: data, configuration: spec) == bundle)
    }

    // MARK: Malformed payloads

    /// The error decoding `text` with `spec` throws, or `nil` if it decodes.
    func failure(_ text: String, _ spec: NavigationBundleSpec) -> NavigationBundleDecodingError? {
        do {
            _ = try decode(text, spec)
            return nil
        } catch {
            return error
        }
    }

    /// The spec of a single value of `type`.
    func spec<T>(_ type: NavigationBundleSpecType<T>) -> NavigationBundleSpec {
        SingleValueNavigationAction.spec(type)
    }

    @Test func aPayloadThatIsNotJSONIsMalformed() throws {
        let error = try #require(failure(#"{"street": "#, Address.spec))
        guard case .malformedPayload(spec: "Address", let reason) = error else {
            Issue.record("expected malformedPayload, got \(error)")
            return
        }
        #expect(reason.contains("not valid JSON"), "\(reason)")
        #expect(error.row == nil)
    }

    @Test func aPayloadThatIsNotAnObjectIsMalformedAndSaysWhatWasFound() {
        #expect(
            failure("[1]", Address.spec)
                == .malformedPayload(spec: "Address", reason: "expected a JSON object, found an array")
        )
        #expect(
            failure("null", Address.spec)
                == .malformedPayload(spec: "Address", reason: "expected a JSON object, found null")
        )
    }

    @Test func aMissingRowIsNamedWithItsType() {
        let error = failure("{}", Address.spec)
        #expect(error == .missingRow(row: "street", expected: "String"))
        #expect(error?.row == "street")
        #expect(error?.description == #"Row "street" is missing: expected String."#)
    }

    @Test func aValueOfTheWrongJSONTypeNamesTheRowWhatWasExpectedAndWhatWasFound() {
        let error = failure(#"{"street": 12}"#, Address.spec)
        #expect(error == .invalidValue(row: "street", expected: "String", reason: "found the number 12"))
        #expect(error?.description == #"Row "street": expected String; found the number 12."#)
        #expect(
            failure(#"{"value": 1}"#, spec(.bool))
                == .invalidValue(row: "value", expected: "Bool", reason: "found the number 1")
        )
        #expect(
            failure(#"{"value": "12"}"#, spec(.int))
                == .invalidValue(row: "value", expected: "Int", reason: #"found the string "12""#)
        )
        #expect(
            failure(#"{"value": true}"#, spec(.unit))
                == .invalidValue(row: "value", expected: "Unit ({})", reason: "found true")
        )
        #expect(
            failure(#"{"value": {}}"#, spec(.date))
                == .invalidValue(row: "value", expected: "Date", reason: "found an object")
        )
        #expect(
            failure(#"{"value": "NaNa"}"#, spec(.double))
                == .invalidValue(row: "value", expected: "Double", reason: #"found the string "NaNa""#)
        )
    }

    @Test func aNumberOutOfRangeOrNotWholeNamesTheRowAndType() {
        #expect(
            failure(#"{"value": 300}"#, spec(.int8))
                == .invalidValue(row: "value", expected: "Int8", reason: "found the number 300")
        )
        #expect(
            failure(#"{"value": -1}"#, spec(.uint))
                == .invalidValue(row: "value", expected: "UInt", reason: "found the number -1")
        )
        #expect(
            failure(#"{"value": 1.5}"#, spec(.int))
                == .invalidValue(row: "value", expected: "Int", reason: "found the number 1.5")
        )
        #expect(
            failure(#"{"value": 1e39}"#, spec(.float))
                == .invalidValue(row: "value", expected: "Float", reason: "found the number 1e+39")
        )
        #expect(
            failure(#"{"value": 1e400}"#, spec(.double))
                == .invalidValue(row: "value", expected: "Double", reason: "found a value out of range")
        )
    }

    @Test func anErrorInsideANestedBundleOrArrayNamesThePathToIt() {
        let trip = NavigationBundleSpec("Trip", rows: Everything.address)
        let outer = NavigationBundleSpec("Outer", rows: NavigationBundleSpecRow("trip", type: .bundle(trip)))
        #expect(
            failure(#"{"trip": {"address": {"number": 1}}}"#, outer)
                == .missingRow(row: "trip.address.street", expected: "String")
        )
        #expect(
            failure(#"{"value": [1, 2, null]}"#, spec(.array(.int)))
                == .invalidValue(row: "value[2]", expected: "Int", reason: "found null")
        )
        #expect(
            failure(
                #"{"value": [{"street": "A"}, {"street": "B", "number": false}]}"#,
                spec(.array(.bundle(Address.spec)))
            )
                == .invalidValue(row: "value[1].number", expected: "Int?", reason: "found false")
        )
        #expect(
            failure(#"{"value": "Main Street"}"#, spec(.bundle(Address.spec)))
                == .invalidValue(
                    row: "value",
                    expected: "NavigationBundle(Address)",
                    reason: #"found the string "Main Street""#
                )
        )
        #expect(
            failure(#"{"value": {"0": "a"}}"#, spec(.array(.string)))
                == .invalidValue(row: "value", expected: "[String]", reason: "found an object")
        )
    }

    @Test func aWrongValueInAnOptionalRowSaysNullWasAllowedToo() {
        #expect(
            failure(#"{"street": "A", "number": "twelve"}"#, Address.spec)
                == .invalidValue(row: "number", expected: "Int?", reason: #"found the string "twelve""#)
        )
    }

    @Test func aMalformedCodableValueNamesTheRowItsTypeAndTheDecodersReason() throws {
        let error = try #require(failure(#"{"value": {"x": 1, "y": "two", "at": 0}}"#, spec(.codable(Point.self))))
        guard case .invalidValue(let row, let expected, let reason) = error else {
            Issue.record("expected invalidValue, got \(error)")
            return
        }
        #expect(row == "value")
        #expect(expected == "Codable(Point)")
        #expect(reason.hasPrefix("expected Double at value.y: "), "\(reason)")
        #expect(
            failure(#"{"value": {"x": 1, "y": 2}}"#, spec(.codable(Point.self)))
                == .invalidValue(row: "value", expected: "Codable(Point)", reason: #"no key "at" at value"#)
        )
    }

    @Test func aLongStringInAnErrorIsShortened() {
        let long = String(repeating: "x", count: 100)
        #expect(
            failure(#"{"value": "\#(long)"}"#, spec(.int))
                == .invalidValue(row: "value", expected: "Int", reason: "found the string \"\(long.prefix(60))…\"")
        )
    }

    @Test func decodingStopsAtTheFirstBadRowInSpecOrder() throws {
        var object = try #require(JSONSerialization.jsonObject(with: Everything.bundle().jsonData()) as? [String: Any])
        object["bool"] = "yes"
        object["int"] = "no"
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        #expect(
            failure(text, Everything.spec)
                == .invalidValue(row: "bool", expected: "Bool", reason: #"found the string "yes""#)
        )
    }

    // MARK: Encoding failures

    @Test func aCodableValueThatFailsToEncodeNamesTheRow() {
        let row = NavigationBundleSpecRow("broken", type: .codable(Unencodable.self))
        let bundle = NavigationBundleSpec("Broken", rows: row).toBundle { _ in row.value(Unencodable()) }
        let error = #expect(throws: NavigationBundleEncodingError.self) { try bundle.jsonData() }
        #expect(error?.row == "broken")
        #expect(error?.type == "Codable(Unencodable)")
        #expect(
            error?.description.hasPrefix(#"Row "broken" (Codable(Unencodable)) could not be written as JSON: "#) == true
        )
    }
}
