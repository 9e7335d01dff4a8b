// Job — one row of the dashboard: a unit of simulated work that a worker thread runs, and the value the worker posts
// into the loop after each step.

/// Where a job is in its life. The declaration order is the order of the status sort and of the groups.
enum JobStatus: Int, CaseIterable, Comparable, Sendable {
    case running
    case queued
    case failed
    case done

    /// The word shown in the status column and in group titles.
    var name: String {
        switch self {
        case .running: "running"
        case .queued: "queued"
        case .failed: "failed"
        case .done: "done"
        }
    }

    static func < (lhs: JobStatus, rhs: JobStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A job as the table shows it: a value, so a worker thread can post it into the loop.
struct Job: Equatable, Sendable {
    /// The job's index in the plan; stable for the whole run.
    var id: Int
    var name: String
    /// The worker thread that runs it, as "w1", "w2", ….
    var worker: String
    var status: JobStatus
    /// 0 to 100.
    var progress: Int
}
