import MainlineLoop
import Testing

@Suite("LoopInstant")
struct LoopInstantTests {
    @Test func instantsAndDurationsCombineAtNanosecondResolution() {
        let start = LoopInstant(nanoseconds: 1_000)
        let later = start + .microseconds(3)
        #expect(later.nanoseconds == 4_000)
        #expect(later - start == .nanoseconds(3_000))
        #expect(later - .nanoseconds(4_000) == .zero)
        #expect(start < later)
        #expect(start.duration(to: later) == .microseconds(3))
    }

    @Test func arithmeticSaturatesInsteadOfOverflowing() {
        let nearEnd = LoopInstant(nanoseconds: .max - 10)
        #expect((nearEnd + .seconds(1)).nanoseconds == .max)
        #expect((LoopInstant(nanoseconds: .min + 10) - .seconds(1)).nanoseconds == .min)
        #expect((LoopInstant.zero + .seconds(Int64.max)).nanoseconds == .max)
    }

    @Test func theDescriptionShowsTheDurationSinceTheOrigin() {
        #expect("\(LoopInstant.zero + .milliseconds(1500))" == "LoopInstant(1.5 seconds)")
    }
}
