import MainlineLoop
import Testing

// The README's secondary-loop example, kept here so that it compiles and passes; `ReadmeSnippetTests` checks that
// the README still shows it verbatim.

/// Counts bytes on a secondary loop: every job of this actor runs on the loop's thread.
actor ByteCounter {
    let loop: EventLoop
    private(set) var total = 0

    init(loop: EventLoop) { self.loop = loop }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func add(_ count: Int) { total += count }
}

// Nested in the serialized `EventLoopTests` so that no other suite's loop is alive while the leak tests count.
extension EventLoopTests {
    @Suite("EventLoop README example")
    struct ReadmeExample {
        @Test func anActorLivesOnASecondaryLoopAndItsCallbacksAreAlreadyIsolatedToIt() async {
            let loop = EventLoop(name: "io")
            let counter = ByteCounter(loop: loop)
            await counter.add(512)  // hops onto the loop's thread
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.post {
                    counter.assumeIsolated { $0.add(256) }  // a post runs on the loop: no hop
                    loop.schedule(after: .milliseconds(5)) {
                        counter.assumeIsolated { $0.add(256) }
                        done.resume()
                    }
                }
            }
            #expect(await counter.total == 1_024)
            loop.stop()
            await loop.waitUntilStopped()
        }
    }
}
