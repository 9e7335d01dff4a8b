import InMemoryTracing
import MainlineLoop
import MainlineTesting
import ServiceContextModule
import Testing
import Tracing

/// A trace that a request starts continues on the loop: swift-distributed-tracing's real in-memory tracer, on
/// `TestLoop` in virtual time.
@MainActor
@Suite("TestLoop continues a trace")
struct TestLoopTracingTests {
    let loop = TestLoop()
    let tracer = InMemoryTracer()

    /// Runs `body` inside a span named `name`, a child of the current context's span, as `withSpan` does.
    func span(_ name: String, _ body: () -> Void) {
        let span = tracer.startSpan(
            name,
            context: ServiceContext.current ?? .topLevel,
            ofKind: .internal,
            at: DefaultTracerClock.now,
            function: #function,
            file: #fileID,
            line: #line
        )
        ServiceContext.withValue(span.context) { body() }
        span.end()
    }

    @Test func spansStartedOnTheLoopAreChildrenOfTheRequestsSpan() throws {
        loop.propagatesServiceContext = true
        let loop = loop
        span("GET /quotes") {
            // A request handler hands work to the loop; the work schedules a timer.
            loop.post {
                span("update model") {
                    loop.schedule(after: .milliseconds(5)) { span("flush") {} }
                }
            }
        }
        loop.advance(by: .milliseconds(5))

        let spans = Dictionary(uniqueKeysWithValues: tracer.finishedSpans.map { ($0.operationName, $0) })
        let request = try #require(spans["GET /quotes"])
        let update = try #require(spans["update model"])
        let flush = try #require(spans["flush"])
        #expect(update.traceID == request.traceID)
        #expect(update.parentSpanID == request.spanID)
        #expect(flush.traceID == request.traceID)
        #expect(flush.parentSpanID == update.spanID)
        #expect(!loop.hasPendingWork)
    }

    @Test func withTheSwitchOffSpansOnTheLoopStartNewTraces() throws {
        let loop = loop
        span("GET /quotes") {
            loop.post { span("update model") {} }
        }
        loop.runUntilIdle()

        let spans = Dictionary(uniqueKeysWithValues: tracer.finishedSpans.map { ($0.operationName, $0) })
        let request = try #require(spans["GET /quotes"])
        let update = try #require(spans["update model"])
        #expect(update.traceID != request.traceID)
        #expect(update.parentSpanID == nil)
    }
}
