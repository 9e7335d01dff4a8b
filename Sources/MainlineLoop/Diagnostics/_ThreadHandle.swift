import CMainlineShims
import Glibc

/// A thread whose stack another thread may capture later: its kernel thread id. (Interim: replaced by the backtrace
/// branch's version at merge.)
package struct _ThreadHandle: Sendable, Hashable {
    package let id: Int64

    /// The calling thread.
    package static func current() -> _ThreadHandle { _ThreadHandle(id: mainline_thread_id()) }
}
