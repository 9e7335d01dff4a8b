import MainlineLoop
import MainlineTesting
import ServiceContextModule
import Testing

/// A trace's identity, as a tracer would keep it in the context.
private enum TraceIDKey: ServiceContextKey {
    typealias Value = String
}

/// A context that carries `traceID`.
private func context(traceID: String) -> ServiceContext {
    var context = ServiceContext.topLevel
    context[TraceIDKey.self] = traceID
    return context
}

/// The trace id current where it is called; `nil` without a context.
@MainActor private var currentTraceID: String? { ServiceContext.current?[TraceIDKey.self] }

/// `ServiceContext` carried into posted and scheduled work on `TestLoop`, in virtual time.
@MainActor
@Suite("TestLoop carries the ServiceContext")
struct TestLoopServiceContextTests {
    let loop = TestLoop()
    /// What each body saw, in the order the bodies ran.
    final class Seen { var traceIDs: [String?] = [] }
    let seen = Seen()

    init() {
        loop.propagatesServiceContext = true
    }

    @Test func aPostRunsWithThePostersContextCurrent() {
        let seen = seen
        ServiceContext.withValue(context(traceID: "request-1")) {
            loop.post { seen.traceIDs.append(currentTraceID) }
            _ = loop.tryPost { seen.traceIDs.append(currentTraceID) }
            loop.post(label: "labelled") { seen.traceIDs.append(currentTraceID) }
        }
        #expect(currentTraceID == nil)
        loop.runUntilIdle()
        #expect(seen.traceIDs == ["request-1", "request-1", "request-1"])
        #expect(!loop.hasPendingWork)
    }

    @Test func eachPostCarriesItsOwnPostersContextAndNoneLeaksIntoTheNext() {
        let seen = seen
        ServiceContext.withValue(context(traceID: "a")) { _ = loop.post { seen.traceIDs.append(currentTraceID) } }
        loop.post { seen.traceIDs.append(currentTraceID) }
        ServiceContext.withValue(context(traceID: "b")) { _ = loop.post { seen.traceIDs.append(currentTraceID) } }
        loop.runIteration()
        #expect(seen.traceIDs == ["a", nil, "b"])
        #expect(currentTraceID == nil)
    }

    @Test func timersScheduledFromACarriedBodyCarryTheContextOn() {
        let seen = seen
        let loop = loop
        ServiceContext.withValue(context(traceID: "request-2")) {
            _ = loop.post {
                loop.schedule(after: .milliseconds(10)) { seen.traceIDs.append("once: \(currentTraceID ?? "none")") }
                loop.schedule(after: .milliseconds(20), label: "labelled") {
                    seen.traceIDs.append("labelled: \(currentTraceID ?? "none")")
                }
                loop.scheduleRepeating(every: .milliseconds(15)) { task in
                    seen.traceIDs.append("repeating: \(currentTraceID ?? "none")")
                    if task.firings == 2 { task.cancel() }
                }
            }
        }
        loop.runIteration()
        loop.advance(by: .milliseconds(30))
        #expect(
            seen.traceIDs == [
                "once: request-2", "repeating: request-2", "labelled: request-2", "repeating: request-2",
            ]
        )
        #expect(!loop.hasPendingWork)
    }

    @Test func timersScheduledWithNoContextCurrentRunWithout() {
        let seen = seen
        loop.schedule(after: .milliseconds(1)) { seen.traceIDs.append(currentTraceID) }
        loop.advance(by: .milliseconds(1))
        #expect(seen.traceIDs == [nil])
    }

    @Test func withTheSwitchOffNothingIsCarried() {
        let seen = seen
        loop.propagatesServiceContext = false
        #expect(!loop.propagatesServiceContext)
        ServiceContext.withValue(context(traceID: "request-3")) {
            loop.post { seen.traceIDs.append(currentTraceID) }
            loop.schedule(after: .milliseconds(1)) { seen.traceIDs.append(currentTraceID) }
        }
        loop.advance(by: .milliseconds(1))
        #expect(seen.traceIDs == [nil, nil])
    }

    @Test func theSwitchIsOffByDefault() {
        #expect(!TestLoop().propagatesServiceContext)
    }
}
