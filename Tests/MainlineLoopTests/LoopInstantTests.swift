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

    @Test func durationsBecomeWholeNanosecondsTruncatedTowardZeroOnEitherSideOfNineSeconds() {
        // 2^63 attoseconds is about 9.22 s: durations below it and above it take different paths to nanoseconds.
        func nanoseconds(_ duration: Duration) -> Int64 { (LoopInstant.zero + duration).nanoseconds }
        #expect(nanoseconds(.nanoseconds(9_223_372_036)) == 9_223_372_036)
        #expect(nanoseconds(.nanoseconds(9_223_372_037)) == 9_223_372_037)
        #expect(nanoseconds(.nanoseconds(-9_223_372_036)) == -9_223_372_036)
        #expect(nanoseconds(.nanoseconds(-9_223_372_037)) == -9_223_372_037)
        #expect(nanoseconds(.seconds(-1.5)) == -1_500_000_000)
        // Fractions of a nanosecond are dropped, toward zero, whatever the sign and the size.
        #expect(nanoseconds(Duration(secondsComponent: 0, attosecondsComponent: 1_999_999_999)) == 1)
        #expect(nanoseconds(.zero - Duration(secondsComponent: 0, attosecondsComponent: 1_999_999_999)) == -1)
        #expect(nanoseconds(Duration(secondsComponent: 20, attosecondsComponent: 1_999_999_999)) == 20_000_000_001)
        #expect(
            nanoseconds(.zero - Duration(secondsComponent: 20, attosecondsComponent: 1_999_999_999)) == -20_000_000_001
        )
    }

    @Test func theDescriptionShowsTheDurationSinceTheOrigin() {
        #expect("\(LoopInstant.zero + .milliseconds(1500))" == "LoopInstant(1.5 seconds)")
    }
}
