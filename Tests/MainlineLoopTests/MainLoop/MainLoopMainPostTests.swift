import Dispatch
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// Posts to `MainLoop.main` take a path of their own (`_postToMainLoop`, which reaches the loop without retaining it);
/// every other loop is posted to directly. Both end in the same queue.
// Five minutes: `MainLoop.main` runs on the main queue, which every main-actor suite of the process shares; under
// ThreadSanitizer a main-actor job has waited two minutes for its turn.
@Suite("MainLoop.main posts", .timeLimit(.minutes(5)))
struct MainLoopMainPostTests {
    /// What the posted bodies saw, on the main actor.
    @MainActor final class Ran {
        var order: [Int] = []
        var insideTheMainLoop = 0

        func record(_ index: Int) {
            order.append(index)
            if _RunningLoop.isRunning(MainLoop.main) { insideTheMainLoop += 1 }
        }
    }

    @Test func everyFormOfPostToTheMainLoopIsAcceptedAndRunsInsideItInPostingOrder() async {
        let ran = Ran()
        let site = LoopSite(fileID: #fileID, line: #line)
        let accepted = await withCheckedContinuation { (done: CheckedContinuation<[Bool], Never>) in
            // From a thread that is not the main actor's, as most posts are.
            DispatchQueue.global().async {
                var accepted = [
                    MainLoop.main.post { ran.record(1) },
                    MainLoop.main.tryPost { ran.record(2) } == .accepted,
                    MainLoop.main.post({ ran.record(3) }, from: site),
                ]
                let firstThree = accepted
                accepted.append(
                    MainLoop.main.tryPost(
                        {
                            ran.record(4)
                            done.resume(returning: firstThree + [true])
                        },
                        from: site
                    ) == .accepted
                )
                // Refused, the last body will not resume the test: resume it here, and the expectation below fails.
                if accepted.last != true { done.resume(returning: accepted) }
            }
        }
        #expect(accepted == [true, true, true, true])
        await MainActor.run {
            #expect(ran.order == [1, 2, 3, 4], "one producer's posts run in posting order")
            #expect(ran.insideTheMainLoop == 4, "each ran inside an iteration of MainLoop.main")
        }
    }
}
