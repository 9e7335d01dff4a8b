extension LoopSummary {
    /// A stall of the snapshot document: the job that held the loop, how long, its backtrace and what the loop did
    /// just before.
    ///
    /// `Stall` is a value type; all operations on it are thread-safe.
    package struct Stall: Codable, Sendable, Equatable {
        @InspectorField package var site: String? = nil
        @InspectorField package var label: String? = nil
        /// `callback` or `iteration`.
        @InspectorField package var kind: String? = nil
        /// How long it had held the loop when the watchdog reported it: a lower bound.
        @InspectorField package var durationMs: Double? = nil
        /// Whether the watchdog saw it end.
        @InspectorField package var ended: Bool? = nil
        /// How long it held the loop in all, once `ended`.
        @InspectorField package var totalMs: Double? = nil
        @InspectorField package var ageMs: Double? = nil
        /// The loop thread's backtrace, every frame, `#0 0x… Module.function() + 42 in binary`.
        @InspectorList package var backtrace: [String] = []
        /// The recorder's events just before it.
        @InspectorList package var lastEvents: [RecorderEvent] = []

        /// A stall.
        package init(
            site: String?,
            label: String?,
            kind: String?,
            durationMs: Double?,
            ended: Bool?,
            totalMs: Double?,
            ageMs: Double?,
            backtrace: [String],
            lastEvents: [RecorderEvent]
        ) {
            self.site = site
            self.label = label
            self.kind = kind
            self.durationMs = durationMs
            self.ended = ended
            self.totalMs = totalMs
            self.ageMs = ageMs
            self.backtrace = backtrace
            self.lastEvents = lastEvents
        }
    }
}
