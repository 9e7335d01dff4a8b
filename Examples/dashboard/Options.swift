// Options — the command line: `--jobs N`, `--workers W`, `--seed S`, `--pace-ms P`. Bad input throws an
// `OptionsError` that names the flag and what it needs; main prints it and exits 2.

/// What the command line asked for.
struct Options: Equatable, Sendable {
    /// How many jobs the plan has.
    var jobs = 8
    /// How many worker threads run them.
    var workers = 3
    /// The seed of the plan (steps per job, which job fails).
    var seed: UInt64 = 1
    /// Milliseconds a worker spends on one progress step.
    var paceMilliseconds = 150

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: `OptionsError` naming the first flag that is unknown, lacks a value, or is out of range.
    init(arguments: [String]) throws(OptionsError) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else {
                throw flag.hasPrefix("--") ? .missingValue(flag: flag) : .unknownFlag(flag)
            }
            switch flag {
            case "--jobs": jobs = try Self.integer(value, for: flag, in: 1...JobPlan.maximumJobs)
            case "--workers": workers = try Self.integer(value, for: flag, in: 1...8)
            case "--seed":
                guard let seed = UInt64(value) else {
                    throw .invalidValue(flag: flag, value: value, expected: "0...\(UInt64.max)")
                }
                self.seed = seed
            case "--pace-ms": paceMilliseconds = try Self.integer(value, for: flag, in: 0...10_000)
            default: throw .unknownFlag(flag)
            }
        }
    }

    /// The defaults.
    init() {}

    private static func integer(
        _ value: String,
        for flag: String,
        in range: ClosedRange<Int>
    ) throws(OptionsError)
        -> Int
    {
        guard let number = Int(value), range.contains(number) else {
            throw .invalidValue(flag: flag, value: value, expected: "\(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}

/// A command line the dashboard cannot run with.
enum OptionsError: Error, Equatable, CustomStringConvertible {
    /// A flag the dashboard does not know.
    case unknownFlag(String)
    /// A flag given last, without its value.
    case missingValue(flag: String)
    /// A value that is not a number in the flag's range.
    case invalidValue(flag: String, value: String, expected: String)

    var description: String {
        switch self {
        case .unknownFlag(let flag):
            "unknown flag '\(flag)' (flags: --jobs N, --workers W, --seed S, --pace-ms P)"
        case .missingValue(let flag):
            "\(flag) needs a value"
        case .invalidValue(let flag, let value, let expected):
            "\(flag) must be a number in \(expected), got '\(value)'"
        }
    }
}
