import Foundation
import MainlineViewModels

/// A `Codable` value that is `Equatable`, without dates or floating point: bundles compare it with `==`.
struct Label: Codable, Equatable, Sendable {
    var name: String
    var count: Int?
    var flags: [Bool]
}

/// A `Codable` value that is not `Equatable`, with a `Double`, a date and a map: bundles compare it by its JSON.
struct Reading: Codable, Sendable {
    var value: Double
    var at: Date?
    var counts: [String: Int]?
}

/// The specs the bundle fuzzer decodes with. Most rows are optional, so that mutated inputs reach deeper rows.
enum BundleSpecs {
    static let address = NavigationBundleSpec(
        "Address",
        rows: NavigationBundleSpecRow("street", type: .string),
        NavigationBundleSpecRow("number", type: .optional(.int))
    )

    /// Every row type but dates (and `Codable` values with dates inside): bundles of it round-trip exactly.
    static let withoutDates = NavigationBundleSpec(
        "WithoutDates",
        rows: NavigationBundleSpecRow("unit", type: .optional(.unit)),
        NavigationBundleSpecRow("bool", type: .optional(.bool)),
        NavigationBundleSpecRow("int", type: .optional(.int)),
        NavigationBundleSpecRow("int8", type: .optional(.int8)),
        NavigationBundleSpecRow("int16", type: .optional(.int16)),
        NavigationBundleSpecRow("int32", type: .optional(.int32)),
        NavigationBundleSpecRow("int64", type: .optional(.int64)),
        NavigationBundleSpecRow("uint", type: .optional(.uint)),
        NavigationBundleSpecRow("uint8", type: .optional(.uint8)),
        NavigationBundleSpecRow("uint16", type: .optional(.uint16)),
        NavigationBundleSpecRow("uint32", type: .optional(.uint32)),
        NavigationBundleSpecRow("uint64", type: .optional(.uint64)),
        NavigationBundleSpecRow("float", type: .optional(.float)),
        NavigationBundleSpecRow("double", type: .optional(.double)),
        NavigationBundleSpecRow("string", type: .optional(.string)),
        NavigationBundleSpecRow("ints", type: .optional(.array(.int32))),
        NavigationBundleSpecRow("matrix", type: .optional(.array(.array(.optional(.float))))),
        NavigationBundleSpecRow("address", type: .optional(.bundle(address))),
        NavigationBundleSpecRow("stops", type: .array(.bundle(address))),
        NavigationBundleSpecRow("label", type: .optional(.codable(Label.self)))
    )

    /// Dates in every position: a required row, optional, in arrays, nested, inside a `Codable` value.
    static let withDates = NavigationBundleSpec(
        "WithDates",
        rows: NavigationBundleSpecRow("date", type: .date),
        NavigationBundleSpecRow("maybe", type: .optional(.date)),
        NavigationBundleSpecRow("dates", type: .optional(.array(.optional(.date)))),
        NavigationBundleSpecRow(
            "event",
            type: .optional(.bundle(NavigationBundleSpec("Event", rows: NavigationBundleSpecRow("at", type: .date))))
        ),
        NavigationBundleSpecRow("reading", type: .optional(.codable(Reading.self))),
        NavigationBundleSpecRow("double", type: .optional(.double))
    )
}
