import Dispatch
import MainlineTesting
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

extension GuestModeTests {
    @Test func stopAndWaitFromAnotherThreadReturnsOnceTheLoopHasStoppedAndRunEverythingPosted() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let ran = _Locked(0)
        let total = 1_000
        let stateAfterReturn = _Locked<MainLoop.State?>(nil)
        await onAnotherThread {
            for _ in 0..<total { loop.post { ran.withLock { $0 += 1 } } }
            loop.stopAndWait()
            // Read on the waiting thread, right after the call returned: nothing else may be left to happen.
            stateAfterReturn.withLock { $0 = loop.state }
            #expect(ran.withLock { $0 } == total, "every post accepted before the stop ran before stopAndWait returned")
        }
        #expect(stateAfterReturn.withLock { $0 } == .stopped)
    }

    @Test func stopAndWaitOnAStoppedOrNeverStartedLoopReturnsAtOnceWithoutADiagnostic() async {
        let idle = MainLoop()
        let diagnostics = DiagnosticsRecorder()
        // On the main actor: safe here, because there is nothing to wait for.
        await MainActor.run { diagnostics.record { idle.stopAndWait() } }
        #expect(idle.state == .stopped)
        await onAnotherThread { idle.stopAndWait() }
        #expect(diagnostics.kinds.isEmpty)
    }

    @MainActor @Test func stopAndWaitOnTheMainActorIsReportedAndStopsWithoutWaitingInsteadOfDeadlocking() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let ran = _Locked(0)
        for _ in 0..<10 { loop.post { ran.withLock { $0 += 1 } } }
        let diagnostics = DiagnosticsRecorder()
        diagnostics.record { loop.stopAndWait() }
        #expect(diagnostics.kinds == [.stopAndWaitOnLoop])
        #expect(diagnostics.diagnostics.first?.message.contains("where the loop runs") == true)
        #expect(!loop.post {}, "the loop was stopped all the same")
        await loop.waitUntilStopped()
        #expect(ran.withLock { $0 } == 10)
    }

    @Test func aLoopCallbackCallingStopAndWaitIsReportedAndTheLoopStillStops() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        let diagnostics = DiagnosticsRecorder()
        // Installed process-wide: the callback runs on the loop, outside this test's task.
        let kinds = _Locked<[DiagnosticKind]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                diagnostics.record { loop.stopAndWait() }
                kinds.withLock { $0 = diagnostics.kinds }
                done.resume()
            }
        }
        await loop.waitUntilStopped()
        #expect(kinds.withLock { $0 } == [.stopAndWaitOnLoop])
    }
}
