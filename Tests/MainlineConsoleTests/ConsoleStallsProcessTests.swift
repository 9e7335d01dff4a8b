import Dispatch
import Foundation
import MainlineInspection
import MainlineInspectorSchema
import MainlineLoop
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `mainline-console --once` against a real main loop that stalled five times, each stall reported by a real watchdog
/// with the loop thread's backtrace: the text stays a few screens long, and `--once --json` keeps every frame.
@Suite("mainline-console with real stalls", .serialized, .timeLimit(.minutes(3)))
struct ConsoleStallsProcessTests {
    /// Holds the loop until the watchdog has reported the stall: never inlined, so that the backtrace names it.
    @inline(never)
    static func holdTheLoopUntilReported(_ reported: DispatchSemaphore) {
        reported.wait()
    }

    @Test func onceFoldsTheBacktracesOfFiveStallsToTheProcesssOwnFramesAndJSONKeepsThemAll() async throws {
        let loop = MainLoop()
        let registry = _InspectionRegistry()
        let handle = registry.register(loop)
        defer { withExtendedLifetime(handle) {} }
        let reported = DispatchSemaphore(value: 0)
        // Only this loop's callbacks: other suites running beside this one may hold the main actor.
        var watchdog = LoopWatchdog(threshold: .milliseconds(20), watchesMainActor: false) { _ in reported.signal() }
        // The loop thread answers the backtrace's signal when it gets a core: beside the whole suite on two cores that
        // took longer than the default 200 ms, at times longer than 1 s, and a stall was kept without its backtrace.
        // The bound costs time only when the thread is that slow to answer: the hold ends once the backtrace is in.
        watchdog.backtraceTimeout = .seconds(10)
        await MainActor.run { loop.instrument(LoopInstrumentation(watchdog: watchdog)) }
        for _ in 0..<5 {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.post(label: "hold") {
                    Self.holdTheLoopUntilReported(reported)
                    done.resume()
                }
            }
        }
        let kept = loop.flightRecorder.stallsKept
        try #require(kept.count == 5)
        let frames = kept.map { $0.backtrace?.frames.count ?? 0 }
        try #require(frames.allSatisfy { $0 > 0 }, "every stall has a backtrace: \(frames)")

        let folder = makeTemporaryFolder(prefix: "mainline-console")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let inspector = try LoopInspector.start(
            socketPath: folder + "/i.sock",
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }
        let console = try ChildProcess.builtProduct("mainline-console")

        let text = try await ChildProcess.run(console, ["--once", folder + "/i.sock"])
        let json = try await ChildProcess.run(console, ["--once", "--json", folder + "/i.sock"])
        loop.stop()
        await loop.waitUntilStopped()

        #expect(text.status == 0)
        let lines = text.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        let stallLines = lines.filter { $0.hasPrefix("STALL of ") }
        #expect(stallLines.count == 5)
        // Each stall names the process's own function that held the loop, where a reader looks first.
        let own = lines.filter { $0.contains("holdTheLoopUntilReported") }
        #expect(own.count >= 5, "\(text.standardOutput)")
        // Every stall's frames, and each earlier stall inside a later one's last events, would be hundreds of lines.
        let bytes = text.standardOutput.utf8.count
        #expect(bytes < 24_000, "--once printed \(bytes) bytes, \(lines.count) lines for 5 stalls")
        let longest = lines.map(\.count).max() ?? 0
        #expect(longest < 1_000, "a line of \(longest) characters")

        let document = try InspectorJSON.decode(InspectorSnapshot.self, from: json.standardOutput.utf8.dropLast())
        #expect(document.loops.first?.stalls.map(\.backtrace.count) == frames)
    }
}
