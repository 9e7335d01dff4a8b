import Dispatch
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// Posts to `MainLoop.main` take a path of their own (`_postToMainLoop`, which reaches the loop without retaining it);
/// every other loop is posted to directly. Both end in the same queue.
@Suite("MainLoop.main posts", .timeLimit(.minutes(1)))
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
        let ran = await Ran()
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
                precondition(accepted.last == true, "the last post was refused: nothing would resume the test")
            }
        }
        #expect(accepted == [true, true, true, true])
        await MainActor.run {
            #expect(ran.order == [1, 2, 3, 4], "one producer's posts run in posting order")
            #expect(ran.insideTheMainLoop == 4, "each ran inside an iteration of MainLoop.main")
        }
    }
}
