/// The blocks a `_JobQueue`'s loop has left, kept for the producers that install new ones: first in, first out, at
/// most ``limit``.
///
/// All operations on `_JobBlockPool` are thread-safe (a lock, taken once per block: every 255 posts).
///
/// Oldest first, so that a producer writes into memory the loop read longest ago: by then it has left the loop's core's
/// caches, and the producer's writes find it in the shared cache instead of taking each line from the other core
/// (measured on these 2-vCPU machines, where the two vCPUs are not always cache siblings). What a burst grew beyond the
/// limit is freed as the loop leaves it.
package final class _JobBlockPool: @unchecked Sendable {
    // @unchecked Sendable: `blocks`, `first` and `count` are protected by `lock`.
    /// At most this many blocks are kept: 16 × 16 KB.
    package static let limit = 16

    private let lock = _Lock()
    private var blocks = [UnsafeMutableRawPointer?](repeating: nil, count: limit)
    private var first = 0
    private(set) var count = 0

    deinit {
        for block in blocks { block?.deallocate() }
    }

    /// The oldest block kept, or `nil`.
    package func take() -> _JobBlock? {
        lock.withLock {
            guard count > 0, let base = blocks[first] else { return nil }
            blocks[first] = nil
            first = (first + 1) % Self.limit
            count -= 1
            return _JobBlock(base)
        }
    }

    /// Keeps `block` (reset, every slot empty), or frees it when the pool is full.
    func put(_ block: _JobBlock) {
        let kept = lock.withLock {
            guard count < Self.limit else { return false }
            blocks[(first + count) % Self.limit] = block.base
            count += 1
            return true
        }
        if !kept { block.deallocate() }
    }
}
