import Testing

@testable import pubsub_server

/// pubsub-server's command backlog as a state machine, without I/O: when a client's socket stops being read, when it
/// is read again, and how the connection's own say (paused, closing) combines with the backlog's.
@Suite("Example: pubsub-server's command backlog")
struct PubSubServerCommandBacklogTests {
    typealias State = CommandBacklog.State

    /// `count` commands posted to `state`; the actions they returned.
    static func post(_ count: Int, to state: inout State) -> [State.Action] {
        (0..<count).map { _ in state.posted() }
    }

    /// `count` commands finished on `state`; the actions they returned.
    static func finish(_ count: Int, on state: inout State) -> [State.Action] {
        (0..<count).map { _ in state.finished() }
    }

    @Test func theSocketStopsBeingReadAtTheLimitAndIsReadAgainAtAQuarterOfIt() {
        var state = State()
        #expect(Self.post(State.limit - 1, to: &state).allSatisfy { $0 == .unchanged })
        #expect(state.reads && state.decodes)
        #expect(state.posted() == .applyReading)
        #expect(!state.reads && !state.decodes)
        #expect(state.waiting == State.limit)
        // Lines already read go on being posted past the limit (at most one read's worth): nothing more to do.
        #expect(Self.post(10, to: &state).allSatisfy { $0 == .unchanged })

        let aboveMark = State.limit + 10 - State.resumeMark - 1
        #expect(Self.finish(aboveMark, on: &state).allSatisfy { $0 == .unchanged })
        #expect(!state.reads)
        #expect(state.finished() == .resume)
        #expect(state.reads && state.decodes)
        #expect(state.waiting == State.resumeMark)
        #expect(Self.finish(State.resumeMark, on: &state).allSatisfy { $0 == .unchanged })
        // A finish with nothing waiting changes nothing.
        #expect(state.finished() == .unchanged)
        #expect(state.waiting == 0)
    }

    @Test func aConnectionThatStopsReadingIsNotReadWhenTheBacklogClearsUntilItReadsAgain() {
        var state = State()
        #expect(state.setReading(false) == .applyReading)
        #expect(!state.reads && state.decodes)
        // Full while the connection does not read: nothing to apply, the socket is already not read.
        #expect(Self.post(State.limit, to: &state).last == State.Action.unchanged)
        #expect(!state.decodes)
        // Reading wanted again while full: the backlog still says no.
        #expect(state.setReading(true) == .unchanged)
        #expect(!state.reads)
        #expect(state.setReading(false) == .unchanged)
        // The backlog clears: the decoder goes on, the socket stays unread.
        #expect(Self.finish(State.limit - State.resumeMark, on: &state).last == .resume)
        #expect(!state.reads && state.decodes)
        #expect(state.setReading(true) == .applyReading)
        #expect(state.reads)
        #expect(state.setReading(true) == .unchanged)
    }
}
