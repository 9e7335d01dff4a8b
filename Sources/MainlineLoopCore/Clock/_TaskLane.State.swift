extension _TaskLane {
    /// What a lane knows, and how each event changes it: a value, tested without tasks, jobs or queues (the jobs are
    /// a type parameter, so a test holds plain values). `_TaskLane` keeps one behind its lock and performs the actions
    /// its events return: queueing a pump on the main queue, running a job, handing jobs back.
    ///
    /// Not thread-safe by itself: its owner calls it under a lock.
    package struct State<Job> {
        /// The run being watched: the task that runs its body, and the newest task id that existed before it began.
        package struct Run: Equatable {
            package var driver: UInt64
            package var firstTaskID: UInt64

            package init(driver: UInt64, firstTaskID: UInt64) {
                self.driver = driver
                self.firstTaskID = firstTaskID
            }
        }

        /// The run being watched; `nil` before `begin` and after `finish`.
        package private(set) var run: Run?
        /// The held jobs, in the order they were enqueued, each with its task's number in the run.
        private var held: [(job: Job, task: Int)] = []
        /// Task id → its number in the run (1, 2, … in the order the tasks joined), which names it in the schedule's log.
        private var numbers: [UInt64: Int] = [:]
        /// Tasks inside `outsideVirtualTime`, and how deep: their resumptions from outside the run are not escapes.
        private var allowedTasks: [UInt64: Int] = [:]
        private var escapes: [_Escape] = []
        /// How many async steps of the run's test loops are running: while one is, it takes the held jobs.
        private var stepping = 0
        /// Whether a pump is on the main queue.
        private var pumpQueued = false

        /// A lane that watches nothing.
        package init() {}

        /// What to do with a job enqueued for a task of the run.
        package enum Hold: Equatable {
            /// Held; queue a pump when `queuePump`.
            case held(queuePump: Bool)
            /// Run it at once, FIFO on the main queue: the lane is not watching, or the job came from outside the run.
            case runNow
        }

        /// Starts watching a run. Returns whether the lane was not watching before (the owner counts watching lanes).
        package mutating func begin(_ run: Run) -> Bool {
            defer { self.run = run }
            return self.run == nil
        }

        /// Stops watching. Returns whether it was watching, the jobs still held (in the order they were held) and what
        /// escaped; the lane is then empty.
        package mutating func finish() -> (wasWatching: Bool, jobs: [Job], escapes: [_Escape]) {
            defer { self = State() }
            return (run != nil, held.map(\.job), escapes)
        }

        /// Whether task `id` may join because the run's code started it: a task newer than the run, not its driver.
        package func mayAdopt(taskID id: UInt64) -> Bool {
            guard let run else { return false }
            return id > run.firstTaskID && id != run.driver
        }

        /// Whether task `id` runs the body.
        package func isDriver(_ id: UInt64) -> Bool { run?.driver == id }

        /// The number that names task `id` in the run, if it joined.
        package func number(ofTask id: UInt64) -> Int? { numbers[id] }

        /// Whether a job is held.
        package var hasHeldJobs: Bool { !held.isEmpty }

        /// The held jobs' task numbers, in the order they were held: what a chooser picks among.
        package var heldTasks: [Int] { held.map(\.task) }

        /// A job of task `taskID` was enqueued, on the main actor or (`fromOutside`) elsewhere. From the main actor it
        /// is held until a step or the pump takes it. From outside — real I/O, a thread, a real sleep woke the task —
        /// it runs at once (no schedule orders it, and the code waiting for it may not step), and it is an escape
        /// unless the task is inside `outsideVirtualTime`.
        package mutating func hold(_ job: Job, taskID: UInt64, fromOutside: Bool) -> Hold {
            guard run != nil else { return .runNow }
            let number = numbers[taskID] ?? (numbers.count + 1)
            numbers[taskID] = number
            guard fromOutside else {
                held.append((job, number))
                return .held(queuePump: queuePump())
            }
            if allowedTasks[taskID] == nil {
                escapes.append(
                    _Escape(
                        kind: .realWait,
                        detail: "task \(number) of the run was resumed from outside it",
                        context: "a thread the loop did not start"
                    )
                )
            }
            return .runNow
        }

        /// Removes the held job at `index` of ``heldTasks`` (clamped); `nil` when nothing is held.
        package mutating func take(at index: Int) -> Job? {
            guard !held.isEmpty else { return nil }
            return held.remove(at: min(max(index, 0), held.count - 1)).job
        }

        /// A test loop's async step begins or ends. Returns whether to queue a pump: the last step ended with jobs
        /// still held.
        package mutating func stepping(begins: Bool) -> Bool {
            stepping += begins ? 1 : -1
            return stepping == 0 && !held.isEmpty && queuePump()
        }

        /// The queued pump runs. Returns whether it may take a job: the lane watches and no step is running (a step
        /// takes the jobs itself).
        package mutating func pumpRuns() -> Bool {
            pumpQueued = false
            return stepping == 0 && run != nil
        }

        /// The pump ran a job. Returns whether to queue it again: jobs are still held.
        package mutating func pumpRanJob() -> Bool {
            !held.isEmpty && queuePump()
        }

        /// Marks a pump queued unless one is; returns whether the caller must queue it.
        private mutating func queuePump() -> Bool {
            guard !pumpQueued else { return false }
            pumpQueued = true
            return true
        }

        /// Task `taskID` enters (or leaves) `outsideVirtualTime`.
        package mutating func allow(taskID: UInt64, entering: Bool) {
            allowedTasks[taskID, default: 0] += entering ? 1 : -1
            if allowedTasks[taskID] == 0 { allowedTasks[taskID] = nil }
        }

        /// Records `escape`, if the lane watches a run.
        package mutating func record(_ escape: _Escape) {
            if run != nil { escapes.append(escape) }
        }
    }
}
