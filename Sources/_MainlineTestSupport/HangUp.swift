#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Waits until the peer of the connected socket `descriptor` has hung up (`POLLHUP`), without reading from it: a wait
/// on progress, which gives up only when `poll` has said the same thing for `limit`.
///
/// Not API: `_MainlineTestSupport` serves Mainline's own tests and examples, and may change in any release.
///
/// Blocks the calling thread (in `poll`, 100 ms at a time); call it off the concurrency pool's few threads where that
/// matters.
///
/// - Parameters:
///   - descriptor: A connected socket the test holds.
///   - limit: How long the wait may see nothing change before it gives up.
/// - Returns: `nil` once the peer hung up; how long it waited in all when it gave up.
public func waitUntilHungUp(_ descriptor: Int32, limit: Duration = .seconds(60)) -> Duration? {
    var standStill = StandStill<Int16>(limit: limit)
    while true {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&ready, 1, 100)
        if ready.revents & Int16(POLLHUP) != 0 { return nil }
        if standStill.hasStoodStill(ready.revents) { return standStill.waited }
    }
}
