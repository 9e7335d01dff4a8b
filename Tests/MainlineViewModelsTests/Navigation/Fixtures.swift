import Foundation
import MainlineViewModels

// Specs, rows and actions shared by the navigation tests.

/// A `Codable` value that is `Equatable`, with a date inside (written with the encoder's date strategy).
struct Point: Codable, Equatable, Sendable {
    var x: Double
    var y: Double
    var label: String?
    var at: Date
}

/// A `Codable` value that is not `Equatable`: bundles compare it by its JSON.
struct Opaque: Codable, Sendable {
    var tags: [String]
}

/// A `Codable` value whose encoding always fails.
struct Unencodable: Codable, Sendable {
    struct Refused: Error {}
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws { throw Refused() }
}

/// A nested bundle's spec.
enum Address {
    static let street = NavigationBundleSpecRow("street", type: .string)
    static let number = NavigationBundleSpecRow("number", type: .optional(.int))
    static let spec = NavigationBundleSpec("Address", rows: street, number)

    static func bundle(_ street: String, _ number: Int?) -> NavigationBundle {
        spec.toBundle { row in
            switch row {
            case Address.street: Address.street.value(street)
            case Address.number: Address.number.value(number)
            default: nil
            }
        }
    }
}

/// A spec with every kind of row: each scalar type, arrays, optionals, nested bundles and `Codable` values.
enum Everything {
    static let unit = NavigationBundleSpecRow("unit", type: .unit)
    static let bool = NavigationBundleSpecRow("bool", type: .bool)
    static let int = NavigationBundleSpecRow("int", type: .int)
    static let int8 = NavigationBundleSpecRow("int8", type: .int8)
    static let int16 = NavigationBundleSpecRow("int16", type: .int16)
    static let int32 = NavigationBundleSpecRow("int32", type: .int32)
    static let int64 = NavigationBundleSpecRow("int64", type: .int64)
    static let uint = NavigationBundleSpecRow("uint", type: .uint)
    static let uint8 = NavigationBundleSpecRow("uint8", type: .uint8)
    static let uint16 = NavigationBundleSpecRow("uint16", type: .uint16)
    static let uint32 = NavigationBundleSpecRow("uint32", type: .uint32)
    static let uint64 = NavigationBundleSpecRow("uint64", type: .uint64)
    static let float = NavigationBundleSpecRow("float", type: .float)
    static let double = NavigationBundleSpecRow("double", type: .double)
    static let string = NavigationBundleSpecRow("string", type: .string)
    static let date = NavigationBundleSpecRow("date", type: .date)
    static let ints = NavigationBundleSpecRow("ints", type: .array(.int))
    static let strings = NavigationBundleSpecRow("strings", type: .array(.string))
    static let dates = NavigationBundleSpecRow("dates", type: .array(.date))
    static let matrix = NavigationBundleSpecRow("matrix", type: .array(.array(.double)))
    static let maybeInts = NavigationBundleSpecRow("maybeInts", type: .array(.optional(.int32)))
    static let presentNote = NavigationBundleSpecRow("presentNote", type: .optional(.string))
    static let absentNote = NavigationBundleSpecRow("absentNote", type: .optional(.string))
    static let address = NavigationBundleSpecRow("address", type: .bundle(Address.spec))
    static let previous = NavigationBundleSpecRow("previous", type: .optional(.bundle(Address.spec)))
    static let stops = NavigationBundleSpecRow("stops", type: .array(.bundle(Address.spec)))
    static let point = NavigationBundleSpecRow("point", type: .codable(Point.self))
    static let points = NavigationBundleSpecRow("points", type: .array(.codable(Point.self)))
    static let opaque = NavigationBundleSpecRow<Opaque>("opaque", type: .codable())

    static let spec = NavigationBundleSpec(
        "Everything",
        rows: unit,
        bool,
        int,
        int8,
        int16,
        int32,
        int64,
        uint,
        uint8,
        uint16,
        uint32,
        uint64,
        float,
        double,
        string,
        date,
        ints,
        strings,
        dates,
        matrix,
        maybeInts,
        presentNote,
        absentNote,
        address,
        previous,
        stops,
        point,
        points,
        opaque
    )

    // 2023-11-14T22:13:20.25Z: a quarter second is exact in binary, so the date's seconds since 1970 are too.
    static let someDate = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let somePoint = Point(x: 1.5, y: -0.1, label: "é\"\\/\n", at: someDate)

    /// A bundle with extreme or awkward values in every row.
    static func bundle() -> NavigationBundle {
        spec.toBundle { row in
            switch row {
            case unit: unit.value(())
            case bool: bool.value(true)
            case int: int.value(.min)
            case int8: int8.value(.min)
            case int16: int16.value(.max)
            case int32: int32.value(.min)
            case int64: int64.value(.max)
            case uint: uint.value(.max)
            case uint8: uint8.value(.max)
            case uint16: uint16.value(.max)
            case uint32: uint32.value(.max)
            case uint64: uint64.value(.max)
            case float: float.value(.leastNonzeroMagnitude)
            case double: double.value(0.1)
            case string: string.value("Grüße, \"quoted\" \\ / \u{0} 🎉")
            case date: date.value(someDate)
            case ints: ints.value([3, -1, 0])
            case strings: strings.value([])
            case dates: dates.value([someDate, Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -86_400)])
            case matrix: matrix.value([[1, 2.5], [], [.greatestFiniteMagnitude]])
            case maybeInts: maybeInts.value([1, nil, 3])
            case presentNote: presentNote.value("note")
            case absentNote: nil
            case address: address.value(Address.bundle("Main Street", 12))
            case previous: previous.value(Address.bundle("Old Road", nil))
            case stops: stops.value([Address.bundle("A", 1), Address.bundle("B", nil)])
            case point: point.value(somePoint)
            case points: points.value([somePoint, Point(x: 0, y: 0, label: nil, at: Date(timeIntervalSince1970: 1))])
            case opaque: opaque.value(Opaque(tags: ["a", "b"]))
            default: nil
            }
        }
    }
}

/// The actions of a screen that lists orders.
enum OrdersNavigation: NavigationAction, Equatable {
    case checkout(NavigationBundle)
    case help
    case close

    var bundle: NavigationBundle? {
        switch self {
        case .checkout(let bundle): bundle
        case .help, .close: nil
        }
    }
}
