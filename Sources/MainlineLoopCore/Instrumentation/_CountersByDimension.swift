import CoreMetrics

/// One swift-metrics `Counter` per value of a dimension (a mailbox's name, a stall's label), made on first use with
/// the instrumentation's own dimensions added, then reused.
///
/// Not thread-safe: its owner keeps it on one thread (the loop for mailbox drops, the watchdog thread for stalls).
package struct _CountersByDimension {
    package let label: String
    package let dimension: String
    package let instrumentation: LoopInstrumentation
    private var counters: [String: Counter] = [:]

    package init(label: String, dimension: String, instrumentation: LoopInstrumentation) {
        self.label = label
        self.dimension = dimension
        self.instrumentation = instrumentation
    }

    /// The counter for `value`.
    package mutating func counter(for value: String) -> Counter {
        if let counter = counters[value] { return counter }
        let counter = Counter(
            label: label,
            dimensions: [(dimension, value)] + instrumentation.dimensions,
            factory: instrumentation.metricsFactory
        )
        counters[value] = counter
        return counter
    }
}
