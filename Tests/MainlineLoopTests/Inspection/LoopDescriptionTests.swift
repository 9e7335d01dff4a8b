import Dispatch
import Foundation
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

    private func double(_ value: _InspectionValue?) -> Double? {
        switch value {
        case .double(let number): number
        case .int(let number): Double(number)
        default: nil
        }
    }

    @Test func aMainLoopShowsItsCountersDelaySlowestWorkAndTimers() async throws {
        let loop = MainLoop()
        let registry = _InspectionRegistry()
        let handle = registry.register(loop)
        defer { withExtendedLifetime(handle) {} }
        let slowLine = #line + 1
        try await loop.run { Self.spin(microseconds: 3_000) }
        let timerLine = #line + 1
        try await loop.run { _ = loop.schedule(after: .seconds(60), label: "later") {} }

        let folder = TemporaryFolder()
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }
        let client = try InspectorTestClient(path: folder.file("i.sock"))
        // The timers come from a snapshot the loop takes in a job the inspector posts; it waits 50 ms for it and else
        // shows the last one (none yet). Under load the loop may take longer: then wait for the loop itself — a job
        // posted after the inspector's runs after it — and ask again.
        var answer = try client.ask("snapshot")["loops"]?.arrayValue?.first
        if answer?["timers"] == .null {
            try await loop.run {}
            answer = try client.ask("snapshot")["loops"]?.arrayValue?.first
        }
        let described = try #require(answer)

        #expect(described["name"]?.stringValue == "MainLoop")
        #expect(described["kind"]?.stringValue == "MainLoop")
        #expect(described["state"]?.stringValue == "guest")
        #expect((described["iterations"].flatMap { if case .int(let n) = $0 { n } else { nil } } ?? 0) >= 2)
        #expect(double(described["busyPercent"]).map { $0 >= 0 && $0 <= 100 } == true)
        let delay = described["delay"]
        #expect(double(delay?["maxMs"]).map { $0 >= 3 } == true, "the 3 ms job's iteration")
        #expect(double(delay?["p50Ms"]) != nil && double(delay?["p99Ms"]) != nil)
        let file = "MainlineLoopTests/LoopDescriptionTests.swift"
        // The 3 ms job, by its site (another job may be slower on a slow machine: the inspector's own snapshot job,
        // under ThreadSanitizer).
        let slowest = try #require(
            described["slowest"]?.arrayValue?.first { $0["site"]?.stringValue == "\(file):\(slowLine)" }
        )
        #expect(slowest["kind"]?.stringValue == "post")
        #expect(double(slowest["durationMs"]).map { $0 >= 3 } == true)
        #expect(described["stalls"] == .array([]))
        let timers = try #require(described["timers"]?.arrayValue)
        #expect(timers.count == 1)
        #expect(timers.first?["site"]?.stringValue == "\(file):\(timerLine)")
        #expect(timers.first?["label"]?.stringValue == "later")

        let recorder = try client.ask("recorder")
        let events = try #require(recorder["loops"]?.arrayValue?.first?["events"]?.arrayValue)
        #expect(
            events.contains { $0["kind"]?.stringValue == "slowJob" && $0["site"]?.stringValue == "\(file):\(slowLine)" }
        )

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
        #expect(described?["timers"] == .null, "no snapshot is taken: a post would start the loop")
        #expect(loop.state == .idle)
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
        let folder = TemporaryFolder()
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }
        let client = try InspectorTestClient(path: folder.file("i.sock"))
        // The slow post's run closes when the post phase ends, right after the job: wait for it to be recorded.
        var described: _InspectionValue?
        for _ in 0..<1_000 {
            described = try client.ask("snapshot")["loops"]?.arrayValue?.first
            if described?["slowest"]?.arrayValue?.isEmpty == false { break }
        }
        #expect(described?["name"]?.stringValue == "io")
        #expect(described?["kind"]?.stringValue == "EventLoop")
        #expect(
            described?["slowest"]?.arrayValue?.first?["site"]?.stringValue
                == "MainlineLoopTests/LoopDescriptionTests.swift:\(line)"
        )
        loop.stop()
        await loop.waitUntilStopped()
    }
}
