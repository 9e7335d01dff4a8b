import Foundation
import MainlineLoop
import Testing

@Suite("Diagnostics")
struct DiagnosticsTests {
    /// Collects reports; thread-safe so that handlers called from any thread can use it.
    final class Collected: @unchecked Sendable {
        // @unchecked Sendable: `items` is protected by `lock`.
        private let lock = NSLock()
        private var items: [Diagnostic] = []
        func append(_ diagnostic: Diagnostic) { lock.withLock { items.append(diagnostic) } }
        var all: [Diagnostic] { lock.withLock { items } }
    }

    @Test func aScopedHandlerReceivesTheReportWithKindMessageAndReportingSite() {
        let collected = Collected()
        Diagnostics.withHandler(collected.append) {
            Diagnostics.report(.timeTravel, "moved backwards")
        }
        let diagnostic = collected.all.first
        #expect(collected.all.count == 1)
        #expect(diagnostic?.kind == .timeTravel)
        #expect(diagnostic?.message == "moved backwards")
        #expect(diagnostic?.file == "MainlineLoopTests/DiagnosticsTests.swift")
        #expect(diagnostic?.description == "Mainline misuse [time-travel]: moved backwards")
    }

    @Test func aScopedHandlerCoversTasksCreatedInsideTheScope() async {
        let inside = Collected()
        await Diagnostics.withHandler(inside.append) {
            await Task { Diagnostics.report(.loopNeverIdle, "child task") }.value
        }
        #expect(inside.all.map(\.message) == ["child task"])
    }

    @Test func theMessageIsNotEvaluatedBeforeAHandlerRuns() {
        var evaluations = 0
        func expensive() -> String {
            evaluations += 1
            return "expensive"
        }
        Diagnostics.withHandler({ _ in }) { Diagnostics.report(.timeTravel, expensive()) }
        #expect(evaluations == 1)
    }

    @Test func theDefaultHandlerTrapsInDebugBuildsWithTheMessageAndWhereItWasReported() async {
        guard Diagnostics.trapsByDefault else { return }  // release builds log instead; see the next test
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Diagnostics.report(.runAfterStop, "run() after stop()")
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(standardError.contains("Mainline misuse [run-after-stop]: run() after stop()"))
        #expect(standardError.contains("DiagnosticsTests.swift"))
    }

    @Test func reportsOutsideAnyScopeGoToTheProcessWideHandlerNotToAnotherTasksScope() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            Diagnostics.setHandler { diagnostic in print("process-wide \(diagnostic.kind)") }
            await Diagnostics.withHandler({ diagnostic in print("scoped \(diagnostic.kind)") }) {
                // A detached task does not inherit the scope.
                await Task.detached { Diagnostics.report(.timeTravel, "from a detached task") }.value
                Diagnostics.report(.loopNeverIdle, "from inside the scope")
            }
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(output.split(separator: "\n") == ["process-wide time-travel", "scoped loop-never-idle"])
    }
}
