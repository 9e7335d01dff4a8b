import ServiceContextModule
import Testing

@testable import MainlineLoop
@testable import MainlineLoopCore

/// A trace's identity, as a tracer would keep it in the context.
private enum GuestTraceIDKey: ServiceContextKey {
    typealias Value = String
}

/// On a real loop in guest mode: part of the serialized guest-mode suite, which owns the main queue's timing.
extension GuestModeTests {
    @Test func postsAndTimersScheduledFromThemRunWithThePostersContextCurrent() async {
        let loop = MainLoop()
        loop.attachAsGuest()
        #expect(!loop.propagatesServiceContext)  // off by default
        loop.propagatesServiceContext = true
        @MainActor final class Seen { var traceIDs: [String] = [] }
        let seen = Seen()
        var request = ServiceContext.topLevel
        request[GuestTraceIDKey.self] = "request-1"

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            ServiceContext.withValue(request) {
                loop.post {
                    seen.traceIDs.append("post: \(ServiceContext.current?[GuestTraceIDKey.self] ?? "none")")
                    loop.schedule(after: .milliseconds(1)) {
                        seen.traceIDs.append("timer: \(ServiceContext.current?[GuestTraceIDKey.self] ?? "none")")
                        done.resume()
                    }
                }
                _ = loop.tryPost {
                    seen.traceIDs.append("tryPost: \(ServiceContext.current?[GuestTraceIDKey.self] ?? "none")")
                }
                loop.post(label: "labelled") {
                    seen.traceIDs.append("labelled: \(ServiceContext.current?[GuestTraceIDKey.self] ?? "none")")
                }
            }
            loop.post { seen.traceIDs.append("no context: \(ServiceContext.current?[GuestTraceIDKey.self] ?? "none")") }
        }
        loop.stop()
        await loop.waitUntilStopped()
        await MainActor.run {
            #expect(
                seen.traceIDs == [
                    "post: request-1", "tryPost: request-1", "labelled: request-1", "no context: none",
                    "timer: request-1",
                ]
            )
        }
    }
}
