import Foundation
import MainlineLoop
import MainlineTesting

/// What observers saw, in order.
@MainActor
final class Seen<T> {
    private(set) var values: [T] = []
    func add(_ value: T) { values.append(value) }
}

/// Steps `loop` until `done()` holds, letting other tasks run between steps; gives up after `attempts` rounds.
@MainActor
func stepUntil(_ loop: TestLoop, attempts: Int = 100_000, _ done: () -> Bool) async {
    var left = attempts
    while !done() && left > 0 {
        loop.runUntilIdle()
        await Task.yield()
        left -= 1
    }
}
