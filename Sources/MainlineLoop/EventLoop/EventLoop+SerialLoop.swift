import MainlineLoopCore

// `EventLoop` is a `SerialLoop`: every requirement is met by members declared with the loop (`post`, `tryPost`,
// `whenIdle`, `stop`, `now`, the scheduling calls in `EventLoop+Scheduling.swift`, `snapshot()`); the conformance lives
// here, beside the loop it describes, rather than at the end of the protocol's file.
extension EventLoop: SerialLoop {}
