import Testing

/// Owner mode needs the process main thread, which the test runner owns: these tests run
/// `mainline-owner-probe` in a subprocess and assert on what it reports.
@Suite("MainLoop in owner mode (subprocess)", .timeLimit(.minutes(5)))
struct OwnerModeTests {
    /// What every owner-mode scenario reports after `run()` returned.
    private func expectCleanStop(_ result: OwnerModeProbe.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.exitStatus == 0, "probe failed: \(result.standardError)", sourceLocation: sourceLocation)
        #expect(result["offMainThread"] == "0", "a callback ran off the main thread", sourceLocation: sourceLocation)
        #expect(result["outsideIteration"] == "0", "a callback ran outside the loop", sourceLocation: sourceLocation)
        #expect(result["state"] == "stopped", sourceLocation: sourceLocation)
        #expect(result["postAfterStop"] == "false", sourceLocation: sourceLocation)
        #expect(result["liveLoops"] == "0", "a libuv loop was not closed", sourceLocation: sourceLocation)
        #expect(result["liveHandles"] == "0", "a libuv handle was not closed", sourceLocation: sourceLocation)
    }

    @Test func postsFromFourThreadsRunExactlyOnceInProducerOrderOnTheMainThreadWhileTimersKeepFiring() async throws {
        let result = try await OwnerModeProbe.run("flood")
        expectCleanStop(result)
        #expect(result["posted"] == "400000")
        #expect(result["ran"] == "400000")
        #expect(result["outOfOrder"] == "0")
        let firings = Int(result["timerFiringsDuringFlood"] ?? "") ?? 0
        #expect(firings > 0, "the 1 ms timer never fired while 400,000 posts were being run")
    }

    @Test func mainQueueBlocksAndMainActorTasksRunInsideTheLoopInSubmissionOrder() async throws {
        let result = try await OwnerModeProbe.run("main-queue")
        expectCleanStop(result)
        #expect(result["ran"] == result["submitted"])
        #expect(result["inSubmissionOrder"] == "true")
        #expect(result["mainActorRuns"] == "100")
    }

    @Test func sigintHandlerRunsOnTheLoopAndStopsItCleanly() async throws {
        let result = try await OwnerModeProbe.run("signal")
        expectCleanStop(result)
        #expect(result["handled"] == "SIGINT")
    }

    @Test func sigtermDrainsPostedWorkAndSettleThenRunsShutdownHooksThenStops() async throws {
        let result = try await OwnerModeProbe.run("sigterm-drain")
        expectCleanStop(result)
        #expect(result["drainLog"] == "settled;hook after 100 posts, post refused: true")
    }

    @Test func runOffTheMainThreadTrapsAndSaysToAttachAsGuest() async throws {
        let result = try await OwnerModeProbe.run("run-off-main-thread")
        #expect(result.exitStatus != 0)
        #expect(result.standardError.contains("MainLoop.run() must be called on the process main thread"))
        #expect(result.standardError.contains("attachAsGuest()"))
    }

    @Test func runFromAnAsyncContextTrapsAndSaysToAttachAsGuest() async throws {
        let result = try await OwnerModeProbe.run("run-in-task")
        #expect(result.exitStatus != 0)
        #expect(result.standardError.contains("MainLoop.run() was called from an async context"))
        #expect(result.standardError.contains("attachAsGuest()"))
    }
}
