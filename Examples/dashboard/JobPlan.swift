// JobPlan — what the workers will do, decided up front from a seed so that every run with the same flags ends in the
// same table: each job's number of steps, which worker runs it, and the one job that fails (and where).

/// The reproducible plan of a run. A value: the workers read it from their own threads.
struct JobPlan: Sendable {
    /// One job's script.
    struct Entry: Sendable {
        var job: Job
        /// How many progress steps the job takes to reach 100 %.
        var steps: Int
        /// The step after which the job fails instead of going on; `nil` for a job that succeeds.
        var failsAfterStep: Int?
    }

    var entries: [Entry]
    var workers: Int

    private static let names = [
        "backup-db", "build-docs", "compress-logs", "deploy-api", "encode-video", "fetch-feeds", "index-search",
        "migrate-users", "resize-images", "rotate-keys", "scan-deps", "sync-mirror", "train-model", "vacuum-cache",
        "warm-cdn", "zip-reports",
    ]

    /// The largest `--jobs` the plan has names for.
    static var maximumJobs: Int { names.count }

    /// Plans `jobs` jobs on `workers` workers (job i goes to worker i mod `workers`); exactly one job fails, the
    /// seed says which and after how many steps.
    init(jobs: Int, workers: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let failing = Int(random.next() % UInt64(jobs))
        self.workers = workers
        entries = (0..<jobs).map { index in
            let steps = 4 + Int(random.next() % 9)  // 4 to 12 steps
            let job = Job(
                id: index,
                name: Self.names[index],
                worker: "w\(index % workers + 1)",
                status: .queued,
                progress: 0
            )
            let failsAfter = index == failing ? 1 + Int(random.next() % UInt64(steps - 1)) : nil
            return Entry(job: job, steps: steps, failsAfterStep: failsAfter)
        }
    }

    /// The entries worker `worker` (from 0) runs, in order.
    func entries(forWorker worker: Int) -> [Entry] {
        entries.enumerated().filter { $0.offset % workers == worker }.map(\.element)
    }
}

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same plan on every machine.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
