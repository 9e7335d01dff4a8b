import Testing
import _MainlineTestSupport

/// `StandStill`: a wait gives up only when what it watches has stopped changing for the limit. Exact without waiting:
/// a zero limit has passed at once, an hour's limit never passes within a test.
@Suite("StandStill")
struct StandStillTests {
    @Test func aStateSeenForTheFirstTimeOrChangedIsProgressEvenWithAZeroLimit() {
        var standStill = StandStill<String>(limit: .zero)
        var answers: [Bool] = []
        for state in ["published 1", "published 2", "published 2", "published 3"] {
            answers.append(standStill.hasStoodStill(state))
        }
        // New, changed, the same again (stood still for at least zero), changed again (progress).
        #expect(answers == [false, false, true, false])
    }

    @Test func theSameStateWithinTheLimitIsNotAStandStill() {
        var standStill = StandStill<Int>(limit: .seconds(3_600))
        var stoodStill = 0
        for _ in 0..<1_000 where standStill.hasStoodStill(7) { stoodStill += 1 }
        #expect(stoodStill == 0)
        #expect(standStill.waited < .seconds(3_600))
    }
}
