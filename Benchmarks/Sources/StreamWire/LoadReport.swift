/// What the publishing process reports when it is done, as one line of `key=value` words on its standard output.
///
/// All operations on `LoadReport` are thread-safe (it is a value).
public struct LoadReport: Sendable, Hashable {
    /// Events whose publishing call returned (committed).
    public var published = 0
    /// Events whose publishing call threw.
    public var failed = 0
    /// Events of the measured part (after the warm-up) that committed.
    public var measured = 0
    /// When the first measured event's publishing call started (``monotonicNanoseconds()``).
    public var windowStart: Int64 = 0
    /// When the last publishing call of the run returned.
    public var windowEnd: Int64 = 0
    /// Paced runs: how late the publishing calls started after their deadlines, p50 / p99 / max, in nanoseconds.
    public var lateP50: Int64 = 0
    /// See ``lateP50``.
    public var lateP99: Int64 = 0
    /// See ``lateP50``.
    public var lateMax: Int64 = 0
    /// How long the measured publishing calls took, from the call to its return (the commit), p50, in nanoseconds.
    public var callP50: Int64 = 0
    /// See ``callP50``: p99.
    public var callP99: Int64 = 0

    /// An empty report.
    public init() {}

    /// The line's prefix, so the measuring process can tell it from anything else the child prints.
    public static let prefix = "stream-load:"

    /// The report as one line.
    public var line: String {
        let fields: [(String, Int64)] = [
            ("published", Int64(published)), ("failed", Int64(failed)), ("measured", Int64(measured)),
            ("window-start", windowStart), ("window-end", windowEnd), ("late-p50", lateP50), ("late-p99", lateP99),
            ("late-max", lateMax), ("call-p50", callP50), ("call-p99", callP99),
        ]
        return ([Self.prefix] + fields.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }

    /// Parses ``line``; `nil` when `text` is not one.
    ///
    /// - Parameter text: A line the child printed.
    public init?(line text: some StringProtocol) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        var fields: [String: Int64] = [:]
        for word in text.split(separator: " ").dropFirst() {
            let pair = word.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let value = Int64(pair[1]) else { return nil }
            fields[String(pair[0])] = value
        }
        guard let published = fields["published"], let failed = fields["failed"], let measured = fields["measured"],
            let start = fields["window-start"], let end = fields["window-end"]
        else { return nil }
        self.published = Int(published)
        self.failed = Int(failed)
        self.measured = Int(measured)
        windowStart = start
        windowEnd = end
        lateP50 = fields["late-p50"] ?? 0
        lateP99 = fields["late-p99"] ?? 0
        lateMax = fields["late-max"] ?? 0
        callP50 = fields["call-p50"] ?? 0
        callP99 = fields["call-p99"] ?? 0
    }
}
