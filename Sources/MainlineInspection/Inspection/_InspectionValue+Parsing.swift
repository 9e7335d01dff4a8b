import MainlineLoop
import MainlineLoopCore

// Reading JSON (RFC 8259) into an `_InspectionValue`: what the inspector does with each request line, and what the
// package's tests do with its answers. Strict on syntax (no trailing commas, no comments, no leading zeros), bounded
// in depth so that a line of ten thousand `[` cannot exhaust the inspector thread's stack.

extension _InspectionValue {
    /// Why a text is not the JSON ``init(parsing:maximumDepth:)`` reads.
    ///
    /// `ParseError` is a value type; all operations on it are thread-safe.
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        /// Where the text went wrong: a byte offset from 0.
        package var offset: Int
        /// What was wrong there, such as `expected ':' after an object key`.
        package var reason: String

        /// `<reason> at byte <offset>`.
        package var description: String { "\(reason) at byte \(offset)" }
    }

    /// Reads one JSON value from `bytes` (surrounding whitespace allowed, nothing else after it).
    ///
    /// Numbers without a fraction or exponent that fit an `Int` become ``int(_:)``; every other number
    /// ``double(_:)``. Keys keep their order; a repeated key is kept twice (``subscript(_:)`` finds the first).
    ///
    /// - Parameters:
    ///   - bytes: UTF-8 text.
    ///   - maximumDepth: How deeply arrays and objects may nest.
    /// - Throws: ``ParseError`` naming the first problem and its offset: text that is not UTF-8, a syntax error,
    ///   nesting deeper than `maximumDepth`.
    /// - Complexity: O(*n*) in the length of the text.
    package init(parsing bytes: some Collection<UInt8>, maximumDepth: Int = 64) throws(ParseError) {
        let text = Array(bytes)
        guard String(validating: text, as: UTF8.self) != nil else {
            throw ParseError(offset: 0, reason: "the text is not UTF-8")
        }
        var reader = _JSONReader(bytes: text, maximumDepth: maximumDepth)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw reader.failure("unexpected text after the JSON value") }
        self = value
    }
}

/// A cursor over UTF-8 bytes that reads JSON values; used by ``_InspectionValue/init(parsing:maximumDepth:)``.
///
/// `_JSONReader` is **not** thread-safe: one parse uses it.
private struct _JSONReader {
    let bytes: [UInt8]
    let maximumDepth: Int
    var offset = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    var isAtEnd: Bool { offset >= bytes.count }

    func failure(_ reason: String) -> _InspectionValue.ParseError {
        _InspectionValue.ParseError(offset: offset, reason: reason)
    }

    mutating func skipWhitespace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    mutating func value(depth: Int) throws(_InspectionValue.ParseError) -> _InspectionValue {
        guard offset < bytes.count else { throw failure("the text ends where a value was expected") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("expected a value")
        }
    }

    private mutating func literal(
        _ word: String,
        _ value: _InspectionValue
    ) throws(_InspectionValue.ParseError) -> _InspectionValue {
        let expected = Array(word.utf8)
        guard bytes.count - offset >= expected.count, Array(bytes[offset..<offset + expected.count]) == expected else {
            throw failure("expected a value")
        }
        offset += expected.count
        return value
    }

    private mutating func object(depth: Int) throws(_InspectionValue.ParseError) -> _InspectionValue {
        guard depth <= maximumDepth else { throw failure("nested deeper than \(maximumDepth) levels") }
        offset += 1  // {
        var members: [(String, _InspectionValue)] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw failure("expected a string as an object key")
            }
            let key = try string()
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
                throw failure("expected ':' after an object key")
            }
            offset += 1
            skipWhitespace()
            members.append((key, try value(depth: depth)))
            skipWhitespace()
            guard offset < bytes.count else { throw failure("the text ends inside an object") }
            if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(members)
            }
            guard bytes[offset] == UInt8(ascii: ",") else { throw failure("expected ',' or '}' in an object") }
            offset += 1
        }
    }

    private mutating func array(depth: Int) throws(_InspectionValue.ParseError) -> _InspectionValue {
        guard depth <= maximumDepth else { throw failure("nested deeper than \(maximumDepth) levels") }
        offset += 1  // [
        var elements: [_InspectionValue] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            guard offset < bytes.count else { throw failure("the text ends inside an array") }
            if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(elements)
            }
            guard bytes[offset] == UInt8(ascii: ",") else { throw failure("expected ',' or ']' in an array") }
            offset += 1
        }
    }

    private mutating func string() throws(_InspectionValue.ParseError) -> String {
        offset += 1  // "
        var scalars = String.UnicodeScalarView()
        var run = offset  // the start of the bytes not yet copied, which need no unescaping
        func flush(upTo end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars)
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                flush(upTo: offset)
                offset += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(upTo: offset)
                offset += 1
                scalars.append(try escape())
                run = offset
            case 0x00..<0x20:
                throw failure("a control character inside a string must be escaped")
            default:
                offset += 1
            }
        }
        throw failure("the text ends inside a string")
    }

    /// Reads the escape after a backslash.
    private mutating func escape() throws(_InspectionValue.ParseError) -> Unicode.Scalar {
        guard offset < bytes.count else { throw failure("the text ends inside a string") }
        let byte = bytes[offset]
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try hexQuad()
            if (0xD800..<0xDC00).contains(first) {
                // A high surrogate must be followed by an escaped low one; together they are one scalar.
                guard bytes.count - offset >= 6, bytes[offset] == UInt8(ascii: "\\"),
                    bytes[offset + 1] == UInt8(ascii: "u")
                else { throw failure("a high surrogate without its low surrogate") }
                offset += 2
                let second = try hexQuad()
                guard (0xDC00..<0xE000).contains(second) else {
                    throw failure("a high surrogate without its low surrogate")
                }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(first) else { throw failure("a lone low surrogate") }
            return scalar
        default:
            offset -= 1
            throw failure("an unknown escape in a string")
        }
    }

    private mutating func hexQuad() throws(_InspectionValue.ParseError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw failure("expected four hexadecimal digits after \\u") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    private mutating func number() throws(_InspectionValue.ParseError) -> _InspectionValue {
        let start = offset
        var isInteger = true
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw failure("expected a digit") }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if offset < bytes.count, isDigit(bytes[offset]) { throw failure("a number with a leading zero") }
        } else {
            skipDigits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw failure("expected a digit after '.'") }
            skipDigits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw failure("expected a digit in an exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if isInteger, let integer = Int(text) { return .int(integer) }
        guard let double = Double(text) else { throw failure("a number out of range") }
        return .double(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func skipDigits() {
        while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
    }
}
