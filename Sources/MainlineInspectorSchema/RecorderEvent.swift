/// An event of a flight recorder: when (`atMs` on the loop's clock, `ageMs` before the document), its `kind`, and the
/// fields of that kind — `iteration`: `iterations`, `wakeUps`, `spanMs`, `busyMs`, `timersMs`, `postsMs`, `settleMs`,
/// `idleMs`, `longestMs`, `posts`, `timersFired`, `settleDeliveries`; `slowJob`: `jobKind`, `site`, `label`,
/// `durationMs`, `runLength`, `sitesInRun`; `stall`: `site`, `label`, `stallKind`, `durationMs`, `ended`, `totalMs`,
/// `backtrace`; `mailboxDrop`: `mailbox`, `count`. A field of another kind is absent, not `null`; `site`, `label`
/// and `totalMs` of their kinds are `null` when they have no value.
///
/// `RecorderEvent` is a value type; all operations on it are thread-safe.
package struct RecorderEvent: Codable, Sendable, Equatable {
    package var atMs: Double?
    package var ageMs: Double?
    package var kind: String?
    package var iterations: Int?
    package var wakeUps: Int?
    package var spanMs: Double?
    package var busyMs: Double?
    package var timersMs: Double?
    package var postsMs: Double?
    package var settleMs: Double?
    package var idleMs: Double?
    package var longestMs: Double?
    package var posts: Int?
    package var timersFired: Int?
    package var settleDeliveries: Int?
    package var jobKind: String?
    package var site: String?
    package var label: String?
    package var stallKind: String?
    package var durationMs: Double?
    package var ended: Bool?
    package var totalMs: Double?
    package var runLength: Int?
    package var sitesInRun: Int?
    package var backtrace: [String]?
    package var mailbox: String?
    package var count: Int?

    /// An event of `kind` at `atMs`, `ageMs` before the document; set the fields of its kind after.
    package init(atMs: Double?, ageMs: Double?, kind: String?) {
        self.atMs = atMs
        self.ageMs = ageMs
        self.kind = kind
    }

    /// The fields it has, `null` for the nullable fields of its kind (see the type).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let all: [(CodingKeys, (any Encodable & Sendable)?)] = [
            (.atMs, atMs), (.ageMs, ageMs), (.kind, kind), (.iterations, iterations), (.wakeUps, wakeUps),
            (.spanMs, spanMs), (.busyMs, busyMs), (.timersMs, timersMs), (.postsMs, postsMs), (.settleMs, settleMs),
            (.idleMs, idleMs), (.longestMs, longestMs), (.posts, posts), (.timersFired, timersFired),
            (.settleDeliveries, settleDeliveries), (.jobKind, jobKind), (.site, site), (.label, label),
            (.stallKind, stallKind), (.durationMs, durationMs), (.ended, ended), (.totalMs, totalMs),
            (.runLength, runLength), (.sitesInRun, sitesInRun), (.backtrace, backtrace), (.mailbox, mailbox),
            (.count, count),
        ]
        let nullable: Set<CodingKeys> =
            switch kind {
            case "slowJob": [.site, .label]
            case "stall": [.site, .label, .totalMs]
            default: []
            }
        for (key, value) in all {
            if let value {
                try container.encode(value, forKey: key)
            } else if nullable.contains(key) {
                try container.encodeNil(forKey: key)
            }
        }
    }
}
