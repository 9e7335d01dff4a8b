import Dispatch
import Foundation
import MainlineInspectorSchema
import Testing

@testable import MainlineInspection
@testable import MainlineLoop
@testable import MainlineLoopCore

/// What an inspector shows of real loops: a `MainLoop` in guest mode and an `EventLoop`, asked over a real socket.
@Suite("Loops as an inspector shows them", .serialized)
struct LoopDescriptionTests {
    /// Spins for `microseconds` of real time: slow work the flight recorder records.
    @inline(never)
    static func spin(microseconds: UInt64) {
        let end = DispatchTime.now().uptimeNanoseconds + microseconds * 1_000
        while DispatchTime.now().uptimeNanoseconds < end {}
    }

    @Test func aMainLoopShowsItsCountersDelaySlowestWorkAndTimers() async throws {
        let loop = MainLoop()
        let registry = _InspectionRegistry()
        let handle = registry.register(loop)
        defer { withExtendedLifetime(handle) {} }
        // The timer before the inspector starts: a snapshot it shows in place of a late one is never older than it. An
        // hour away: under ThreadSanitizer this test has taken over 60 s, and a timer due sooner had fired by the
        // question.
        let timerLine = #line + 1
        try await loop.run { _ = loop.schedule(after: .seconds(3_600), label: "later") {} }
        let folder = TemporaryFolder()
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }
        let client = try InspectorTestClient(path: folder.file("i.sock"))
        // The slow job last, just before asking: the delay covers the last 10–20 s, and a guest loop's job may wait
        // longer than that for the main actor, which every main-actor suite shares (96 s once under ThreadSanitizer).
        let slowLine = #line + 1
        try await loop.run { Self.spin(microseconds: 3_000) }
        // The timers come from a snapshot the loop takes in a job the inspector posts; it waits 50 ms for it and else
        // shows the last one (none yet). Under load the loop may take longer: then wait for the loop itself — a job
        // posted after the inspector's runs after it — and ask again.
        var answer = try client.ask("snapshot", as: InspectorSnapshot.self).loops.first
        if answer?.timers == nil {
            try await loop.run {}
            answer = try client.ask("snapshot", as: InspectorSnapshot.self).loops.first
        }
        let described = try #require(answer)

        #expect(described.name == "MainLoop")
        #expect(described.kind == "MainLoop")
        #expect(described.state == "guest")
        #expect((described.iterations ?? 0) >= 2)
        #expect(described.busyPercent.map { $0 >= 0 && $0 <= 100 } == true)
        let delay = described.delay
        #expect(delay?.maxMs.map { $0 >= 3 } == true, "the 3 ms job's iteration")
        #expect(delay?.p50Ms != nil && delay?.p99Ms != nil)
        let file = "MainlineLoopTests/LoopDescriptionTests.swift"
        // The 3 ms job, by its site (another job may be slower on a slow machine: the inspector's own snapshot job,
        // under ThreadSanitizer).
        let slowest = try #require(
            described.slowest.first { $0.site == "\(file):\(slowLine)" }
        )
        #expect(slowest.kind == "post")
        #expect(slowest.durationMs.map { $0 >= 3 } == true)
        #expect(described.stalls == [])
        let timers = try #require(described.timers)
        #expect(timers.count == 1)
        #expect(timers.first?.site == "\(file):\(timerLine)")
        #expect(timers.first?.label == "later")

        let recorder = try client.ask("recorder", as: InspectorRecorderDocument.self)
        let events = try #require(recorder.loops.first?.events)
        #expect(events.contains { $0.kind == "slowJob" && $0.site == "\(file):\(slowLine)" })

        loop.stop()
        await loop.waitUntilStopped()
    }

    @Test func anIdleMainLoopIsShownWithoutBeingStarted() throws {
        let loop = MainLoop()
        let registry = _InspectionRegistry()
        let handle = registry.register(loop)
        defer { withExtendedLifetime(handle) {} }
        let folder = TemporaryFolder()
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }
        let described = try InspectorTestClient(path: folder.file("i.sock")).ask("snapshot")["loops"]?.arrayValue?.first
        #expect(described?["state"]?.stringValue == "idle")
        #expect(described?["timers"] == .null, "no snapshot is taken: a post would start the loop (null, not missing)")
        #expect(loop.state == .idle)
    }

    @Test func aSnapshotsDescriptionShowsTheValuesTheInspectorServes() async throws {
        let loop = EventLoop(name: "io")
        let registry = _InspectionRegistry()
        let handle = registry.register(loop)
        defer { withExtendedLifetime(handle) {} }
        let line = #line + 3
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                loop.scheduleRepeating(every: .seconds(3_600), from: LoopSite(label: "tick")) { _ in }
                loop.schedule(after: .seconds(7_200)) {}
                done.resume()
            }
        }
        let folder = TemporaryFolder()
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }
        let client = try InspectorTestClient(path: folder.file("i.sock"))
        let served = try #require(try client.ask("snapshot", as: InspectorSnapshot.self).loops.first)
        // Taken after the answer, of a loop that waits for an hour: the same counts, a later clock.
        let lines = loop.snapshot().description.split(separator: "\n").map(String.init)
        loop.stop()
        await loop.waitUntilStopped()

        let iteration = try #require(served.iterations) + 1
        let header =
            "EventLoop(io): \(try #require(served.state)), iteration \(iteration) (\(try #require(served.phase)))"
        #expect(lines.first?.hasPrefix(header + ", now ") == true, "\(lines)")
        let idle = served.idlePending.map { $0 > 0 ? ["  idle: \($0) pending"] : [] } ?? ["idlePending missing"]
        let counts =
            [
                "  posts: \(served.postsPending ?? -1) pending, \(served.postsRun ?? -1) run, "
                    + "\(served.postsRejected ?? -1) rejected, \(served.postsDiscarded ?? -1) discarded",
                "  settle: \(served.settlePending ?? -1) pending, \(served.settleDeliveries ?? -1) delivered",
            ] + idle + ["  timers: \(served.timersScheduled ?? -1) scheduled, \(served.timersFired ?? -1) fired"]
        #expect(Array(lines.dropFirst().prefix(counts.count)) == counts)
        let timerLines = lines.dropFirst(1 + counts.count)
        let timers = try #require(served.timers)
        #expect(timers.map(\.label) == ["tick", nil])
        #expect(timers.first?.site == "MainlineLoopTests/LoopDescriptionTests.swift:\(line)")
        #expect(timerLines.count == timers.count)
        let servedNow = try #require(served.nowMs)
        let describedNow = try #require(Self.seconds(in: lines[0], after: "now "))
        #expect(describedNow * 1_000 >= servedNow.rounded(.down))
        for (described, timer) in zip(timerLines, timers) {
            let rest =
                (timer.label.map { "  \($0)" } ?? "")
                + (timer.intervalMs.map {
                    "  every \(LoopSummary.seconds(milliseconds: $0)), fired \(timer.firings ?? -1)"
                } ?? "")
                + "  at \(timer.site ?? "-")"
            #expect(described.hasSuffix(rest), "\(described) for \(timer)")
            // The deadline is the same instant: the description's now plus due, the served one's, to the millisecond
            // each reading is truncated to.
            let due = try #require(Self.seconds(in: described, after: "in "))
            let servedDeadline = servedNow + (timer.dueInMs ?? .nan)
            #expect(abs((describedNow + due) * 1_000 - servedDeadline) <= 2, "\(described) for \(timer)")
        }
    }

    /// The seconds written after `marker` in `line` (`now 12.345 s`), or `nil`.
    private static func seconds(in line: String, after marker: String) -> Double? {
        guard let start = line.range(of: marker)?.upperBound else { return nil }
        return Double(line[start...].prefix { $0 != " " })
    }

    @Test func anEventLoopShowsItsNameAndItsSlowWork() async throws {
        let loop = EventLoop(name: "io")
        let registry = _InspectionRegistry()
        let handle = registry.register(loop)
        defer { withExtendedLifetime(handle) {} }
        let line = #line + 2
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.post {
                Self.spin(microseconds: 2_000)
                done.resume()
            }
        }
        loop.scheduleRepeating(every: .seconds(3_600), from: LoopSite(label: "hourly")) { _ in }
        let folder = TemporaryFolder()
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }
        let client = try InspectorTestClient(path: folder.file("i.sock"))
        // The slow post's run closes when the post phase ends, right after the job: wait for it to be recorded.
        var described: LoopSummary?
        for _ in 0..<1_000 {
            described = try client.ask("snapshot", as: InspectorSnapshot.self).loops.first
            if described?.slowest.isEmpty == false { break }
        }
        #expect(described?.name == "io")
        #expect(described?.kind == "EventLoop")
        #expect(described?.slowest.first?.site == "MainlineLoopTests/LoopDescriptionTests.swift:\(line)")

        // What the snapshot's description shows, on the wire: every field a number (0 where nothing happened).
        let wire = try #require(try client.ask("snapshot")["loops"]?.arrayValue?.first)
        for key in ["nowMs", "postsDiscarded", "settlePending", "idlePending", "timersScheduled"] {
            #expect(wire[key].map { if case .number = $0 { true } else { false } } == true, "\(key)")
        }
        let timer = try #require(wire["timers"]?.arrayValue?.first)
        #expect(timer["intervalMs"] == .number(3_600_000))
        #expect(timer["skippedFirings"] == .int(0))
        #expect(wire["timersScheduled"] == .int(1))
        loop.stop()
        await loop.waitUntilStopped()
    }
}
