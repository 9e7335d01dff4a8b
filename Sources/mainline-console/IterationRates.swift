import MainlineInspectorSchema

/// Iterations per second of each loop, from two successive snapshots: the difference of their `iterations` over the
/// difference of their `uptimeSeconds` (the process's clock, so the console's own pauses do not count).
///
/// `IterationRates` is a value type; all operations on it are thread-safe.
struct IterationRates {
    private var previous: [String: (iterations: Int, at: Double)] = [:]
    private var rates: [String: Double] = [:]

    /// Takes a new snapshot into account.
    ///
    /// - Parameters:
    ///   - snapshot: The new snapshot.
    ///   - fallbackTime: The console's own clock, in seconds, used when the snapshot has no `uptimeSeconds`.
    mutating func add(_ snapshot: InspectorSnapshot, fallbackTime: Double) {
        let time = snapshot.uptimeSeconds ?? fallbackTime
        var seen: [String: (iterations: Int, at: Double)] = [:]
        for loop in snapshot.loops {
            guard let iterations = loop.iterations else { continue }
            if let before = previous[loop.identity], time > before.at, iterations >= before.iterations {
                rates[loop.identity] = Double(iterations - before.iterations) / (time - before.at)
            }
            seen[loop.identity] = (iterations, time)
        }
        previous = seen
        rates = rates.filter { seen[$0.key] != nil }
    }

    /// The loop's iterations per second, once two snapshots had it.
    func rate(of loop: LoopSummary) -> Double? {
        rates[loop.identity]
    }
}
