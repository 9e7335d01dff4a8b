import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// CPU time (user + system) that process `pid` used so far, in seconds, from `/proc/<pid>/stat`; `nil` when it is
/// gone or there is no `/proc`.
func cpuSeconds(of pid: pid_t) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = text.lastIndex(of: ")")
    else { return nil }
    // After "pid (comm)": state is field 3, utime field 14, stime field 15 (proc(5)); comm may hold spaces.
    let fields = text[text.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// CPU seconds used between two samples, summed over the processes in both (a process in only one is left out).
func cpuSpent(from earlier: [pid_t: Double], to later: [pid_t: Double]) -> Double {
    later.reduce(0) { sum, entry in sum + (earlier[entry.key].map { entry.value - $0 } ?? 0) }
}

/// The CPU seconds used so far by `members` and by `backends`, each by pid.
func cpuSample(_ members: [pid_t], _ backends: [pid_t]) -> (members: [pid_t: Double], backends: [pid_t: Double]) {
    func byPID(_ pids: [pid_t]) -> [pid_t: Double] {
        Dictionary(pids.compactMap { pid in cpuSeconds(of: pid).map { (pid, $0) } }, uniquingKeysWith: { $1 })
    }
    return (byPID(members), byPID(backends))
}
