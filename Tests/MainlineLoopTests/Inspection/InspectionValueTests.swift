import Foundation
import Testing

@testable import MainlineInspection
@testable import MainlineLoop
@testable import MainlineLoopCore

/// `_InspectionValue`: the JSON the inspector writes (compact, escaped, finite) and the JSON it reads (strict,
/// bounded).
@Suite("_InspectionValue")
struct InspectionValueTests {
    @Test func jsonIsOneCompactLineWithKeysInTheirOrder() {
        let value: _InspectionValue = .object([
            ("b", .int(-2)), ("a", .array([.null, .bool(true), .bool(false), .double(0.25)])),
            ("c", .object([])), ("d", .array([])), ("e", .string("")),
        ])
        #expect(value.json() == #"{"b":-2,"a":[null,true,false,0.25],"c":{},"d":[],"e":""}"#)
    }

    @Test func stringsEscapeQuotesBackslashesAndEveryControlCharacter() {
        let text = "say \"hi\"\\\n\r\t\u{08}\u{0C}\u{00}\u{1F}\u{7F}\u{2028}é🙂/"
        #expect(
            _InspectionValue.string(text).json()
                == #""say \"hi\"\\\n\r\t\b\f\u0000\u001f\u007f\u2028é🙂/""#
        )
        // Keys too.
        #expect(_InspectionValue.object([("a\"b", .null)]).json() == #"{"a\"b":null}"#)
    }

    @Test func everyEscapedStringReadsBackAsItWasAndFoundationAgrees() throws {
        let text = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }.joined() + "\u{2028}\u{2029}é🙂"
        let json = _InspectionValue.string(text).json()
        #expect(!json.contains("\n"))
        #expect(try _InspectionValue(parsing: Array(json.utf8)) == .string(text))
        let foundation = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        #expect(foundation as? String == text)
    }

    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan, Double.signalingNaN])
    func nonFiniteNumbersAreNull(_ number: Double) {
        #expect(_InspectionValue.double(number).json() == "null")
        #expect(_InspectionValue.array([.double(number)]).json() == "[null]")
    }

    @Test(arguments: [0.0, -0.0, 1.0, 0.1, 1e-5, 1.5e300, -2.5e-300, 12.5, Double.greatestFiniteMagnitude])
    func finiteNumbersAreValidJSONThatReadsBackExactly(_ number: Double) throws {
        let json = _InspectionValue.double(number).json()
        let read = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        #expect((read as? NSNumber)?.doubleValue == number, "\(json)")
        #expect(try _InspectionValue(parsing: Array(json.utf8)) == .double(number))
    }

    @Test func objectsAreEqualOnlyWithTheirKeysInTheSameOrder() {
        let ab: _InspectionValue = .object([("a", .int(1)), ("b", .int(2))])
        #expect(ab == .object([("a", .int(1)), ("b", .int(2))]))
        #expect(ab != .object([("b", .int(2)), ("a", .int(1))]))
        #expect(ab != .object([("a", .int(1))]))
        #expect(_InspectionValue.int(1) != .double(1))
        #expect(_InspectionValue.double(.nan) == .double(.nan))
        #expect(ab["b"] == .int(2))
        #expect(ab["c"] == nil)
        #expect(_InspectionValue.nullable(nil) == .null)
        #expect(_InspectionValue.nullable("x") == .string("x"))
    }

    @Test func aDocumentReadsBackAsTheValueThatWroteIt() throws {
        let value: _InspectionValue = .object([
            ("schema", .int(1)), ("name", .string("main \"loop\"")), ("ratio", .double(0.5)),
            ("nested", .array([.object([("x", .null), ("y", .array([.bool(true), .int(Int.min)]))])])),
        ])
        #expect(try _InspectionValue(parsing: Array(value.json().utf8)) == value)
        #expect(
            try _InspectionValue(parsing: Array(" \n\t{ \"a\" : [ 1 , 2.0e0 , -0 ] }\r\n".utf8))
                == .object([("a", .array([.int(1), .double(2), .int(0)]))])
        )
    }

    @Test func surrogatePairsJoinIntoOneScalar() throws {
        #expect(try _InspectionValue(parsing: Array(#""\ud83d\ude42\u00e9""#.utf8)) == .string("🙂é"))
    }

    @Test(arguments: [
        ("", "the text ends where a value was expected at byte 0"),
        ("{", "expected a string as an object key at byte 1"),
        ("{\"a\" 1}", "expected ':' after an object key at byte 5"),
        ("{\"a\":1,}", "expected a string as an object key at byte 7"),
        ("[1,]", "expected a value at byte 3"),
        ("[1 2]", "expected ',' or ']' in an array at byte 3"),
        ("01", "a number with a leading zero at byte 1"),
        ("1.", "expected a digit after '.' at byte 2"),
        ("-", "expected a digit at byte 1"),
        ("1e", "expected a digit in an exponent at byte 2"),
        ("tru", "expected a value at byte 0"),
        ("\"abc", "the text ends inside a string at byte 4"),
        ("\"a\u{01}\"", "a control character inside a string must be escaped at byte 2"),
        ("\"\\x\"", "an unknown escape in a string at byte 2"),
        ("\"\\u12g4\"", "expected four hexadecimal digits after \\u at byte 5"),
        ("\"\\ud83d\"", "a high surrogate without its low surrogate at byte 7"),
        ("\"\\ude42\"", "a lone low surrogate at byte 7"),
        ("1 2", "unexpected text after the JSON value at byte 2"),
        ("// no comments", "expected a value at byte 0"),
    ])
    func malformedJSONIsRefusedNamingWhatAndWhere(text: String, message: String) {
        #expect(throws: _InspectionValue.ParseError.self) { try _InspectionValue(parsing: Array(text.utf8)) }
        do {
            _ = try _InspectionValue(parsing: Array(text.utf8))
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func textThatIsNotUTF8IsRefused() {
        #expect(throws: _InspectionValue.ParseError(offset: 0, reason: "the text is not UTF-8")) {
            try _InspectionValue(parsing: [0x22, 0xC3, 0x28, 0x22])
        }
    }

    @Test func nestingIsBoundedSoNoLineCanExhaustTheStack() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: _InspectionValue.ParseError(offset: 64, reason: "nested deeper than 64 levels")) {
            try _InspectionValue(parsing: Array(deep.utf8))
        }
        let allowed = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try _InspectionValue(parsing: Array(allowed.utf8)).arrayValue?.count == 1)
    }
}
