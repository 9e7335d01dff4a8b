import Foundation
import ServiceContextModule
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// A trace's identity, as a tracer would keep it in the context.
private enum TraceIDKey: ServiceContextKey {
    typealias Value = String
}

extension EventLoopTests {
    @Suite("EventLoop carries the ServiceContext")
    struct ServiceContextTests {
        /// What each body saw on the loop thread, in the order the bodies ran.
        final class Seen: Sendable {
            let traceIDs = _Locked<[String]>([])
            let done = Latch()
            let expected: Int

            init(expected: Int) { self.expected = expected }

            func record(_ what: String) {
                let id = ServiceContext.current?[TraceIDKey.self] ?? "none"
                let count = traceIDs.withLock {
                    $0.append("\(what): \(id)")
                    return $0.count
                }
                if count == expected { done.open() }
            }
        }

        func context(traceID: String) -> ServiceContext {
            var context = ServiceContext.topLevel
            context[TraceIDKey.self] = traceID
            return context
        }

        @Test func postsAndTimersRunWithThePostersContextCurrent() async {
            let loop = EventLoop(name: "context")
            loop.propagatesServiceContext = true
            let seen = Seen(expected: 6)
            ServiceContext.withValue(context(traceID: "request-1")) {
                loop.post {
                    seen.record("post")
                    // Scheduled on the loop thread, inside a carried body: carried on.
                    loop.schedule(after: .milliseconds(1)) { seen.record("timer from post") }
                }
                _ = loop.tryPost { seen.record("tryPost") }
                loop.scheduleRepeating(every: .milliseconds(1)) { task in
                    seen.record("repeating")
                    if task.firings == 2 { task.cancel() }
                }
            }
            loop.post { seen.record("no context") }
            #expect(await seen.done.wait())
            let traceIDs = seen.traceIDs.withLock { $0 }
            #expect(
                traceIDs.sorted() == [
                    "no context: none", "post: request-1", "repeating: request-1", "repeating: request-1",
                    "timer from post: request-1", "tryPost: request-1",
                ]
            )
            loop.stop()
            await loop.waitUntilStopped()
        }

        @Test func withTheSwitchOffNothingIsCarried() async {
            let loop = EventLoop(name: "no-context")
            #expect(!loop.propagatesServiceContext)
            let seen = Seen(expected: 2)
            ServiceContext.withValue(context(traceID: "request-2")) {
                loop.post { seen.record("post") }
                loop.schedule(after: .milliseconds(1)) { seen.record("timer") }
            }
            #expect(await seen.done.wait())
            #expect(seen.traceIDs.withLock { $0.sorted() } == ["post: none", "timer: none"])
            loop.stop()
            await loop.waitUntilStopped()
        }
    }
}
