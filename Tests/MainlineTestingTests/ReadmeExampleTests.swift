import MainlineLoop
import MainlineTesting
import Testing

// The README's test-mode example, kept here so that it compiles and passes; `ReadmeSnippetTests` checks that the
// README still shows it verbatim.

/// Counts beats on whatever loop it is given: the real main loop in the program, a `TestLoop` in tests.
@MainActor
final class Heartbeat {
    private(set) var beats = 0
    private var task: ScheduledTask?

    init(every interval: Duration, loop: any Loop = MainLoop.main) {
        task = loop.scheduleRepeating(every: interval) { [weak self] _ in self?.beats += 1 }
    }

    func stop() { task?.cancel() }
}

@MainActor
@Test func heartbeatBeatsOncePerIntervalInVirtualTime() {
    let loop = TestLoop()
    let heartbeat = Heartbeat(every: .seconds(1), loop: loop)
    loop.advance(by: .milliseconds(2_999))
    #expect(heartbeat.beats == 2)
    loop.advance(by: .milliseconds(1))
    #expect(heartbeat.beats == 3)
    heartbeat.stop()
    #expect(!loop.hasPendingWork)
}
