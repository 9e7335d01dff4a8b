import Dispatch
import MainlineLoop
import NIOCore
import NIOPosix

/// The single-threaded NIO event loop the NIO peer posts to.
let nioGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
// NIOCore.EventLoop: Mainline has an `EventLoop` (its secondary loop) too.
let nioLoop: any NIOCore.EventLoop = nioGroup.next()

/// Mainline's secondary loop: a libuv loop on a thread of its own, the counterpart of NIO's loop.
let benchEventLoop = MainlineLoop.EventLoop(name: "bench-loop")

/// One of the four ways of handing a closure to a serial consumer thread that the benchmarks compare.
///
/// Every peer posts the same non-capturing closure (it only calls a global), so that what is measured is the
/// hand-over, not closure-context allocation.
enum Peer: String, CaseIterable, Sendable {
    case mainline = "Mainline MainLoop.main.post"
    case mainlineEventLoop = "Mainline EventLoop.post"
    case dispatchMain = "DispatchQueue.main.async"
    case nio = "NIO EventLoop.execute"

    /// Posts `count` jobs, each of which ticks ``postSink`` once.
    func postTicks(_ count: Int) {
        switch self {
        case .mainline:
            for _ in 0..<count { MainLoop.main.post { postSink.tick() } }
        case .mainlineEventLoop:
            for _ in 0..<count { benchEventLoop.post { postSink.tick() } }
        case .dispatchMain:
            for _ in 0..<count { DispatchQueue.main.async { postSink.tick() } }
        case .nio:
            for _ in 0..<count { nioLoop.execute { postSink.tick() } }
        }
    }

    /// Posts one job that signals ``roundTripReply``.
    func postReply() {
        switch self {
        case .mainline:
            MainLoop.main.post { roundTripReply.signal() }
        case .mainlineEventLoop:
            benchEventLoop.post { roundTripReply.signal() }
        case .dispatchMain:
            DispatchQueue.main.async { roundTripReply.signal() }
        case .nio:
            nioLoop.execute { roundTripReply.signal() }
        }
    }

    /// Brings the consumer up and proves it runs work: attaches Mainline as a guest, starts NIO's thread.
    func warmUp() {
        if self == .mainline { MainLoop.main.attachAsGuest() }
        postSink.arm(1_000)
        postTicks(1_000)
        postSink.wait()
    }
}
