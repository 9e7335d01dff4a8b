import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Waits until standard input ends: the measuring process closes the pipe that is both members' standard input once
/// both said `ready`, so the two start handling at the same moment. Reads on a thread of its own (it blocks).
func waitForGo() async {
    await withCheckedContinuation { (go: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(0, &byte, 1)
                if count > 0 || (count < 0 && errno == EINTR) { continue }
                break
            }
            go.resume()
        }
    }
}
