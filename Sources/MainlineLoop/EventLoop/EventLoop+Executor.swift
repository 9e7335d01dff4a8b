import MainlineLoopCore

extension EventLoop: SerialExecutor, TaskExecutor {
    /// Runs `job` on the loop's thread: the executor of every actor and task that uses this loop.
    ///
    /// Called by the Swift runtime, not by user code. Jobs go through the same queue as ``post(_:fileID:line:)``, so they
    /// interleave with posted closures in one FIFO per producer and share its per-iteration budget. Each job runs
    /// isolated to this loop as both its serial executor and its task executor.
    ///
    /// After ``stop()`` posts are refused, but jobs are still accepted while the loop drains, so that tasks already
    /// running on the loop can finish (the loop stops once none is left).
    ///
    /// - Parameter job: The job to run.
    /// - Important: A job that arrives after the loop has completely stopped cannot run on it, and dropping it would
    ///   leave its task suspended forever — hiding the bug as a hang. So it traps, with a message naming the loop.
    ///   Stop a loop only after the actors and tasks that use it are done.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // A task's job has no site of its own: the recorder and snapshots call it `task`.
        let accepted = driver.queue.enqueueJob(
            {
                // Captures `self` strongly: the loop (and its executor identity) outlives every job queued on it.
                job.runSynchronously(
                    isolatedTo: self.asUnownedSerialExecutor(),
                    taskExecutor: self.asUnownedTaskExecutor()
                )
            },
            site: Self.taskSite
        )
        guard case .enqueued = accepted else { jobEnqueuedAfterStop() }
    }

    /// The site of every task job: a label, since a job says nothing of where its task was created.
    private static let taskSite = LoopSite(label: "task")

    private func jobEnqueuedAfterStop() -> Never {
        preconditionFailure(
            """
            BUG DETECTED: a job was enqueued on EventLoop '\(name)' after it stopped. An actor or task that uses \
            this loop as its executor was resumed or called after stop() had finished; the loop has no thread left \
            to run it, and dropping it would leave the task suspended forever. Stop an EventLoop only after the \
            actors and tasks that run on it are done (await their work before calling stop()).
            """
        )
    }

    /// This loop as the serial executor of an actor: `nonisolated var unownedExecutor: UnownedSerialExecutor {
    /// loop.asUnownedSerialExecutor() }`.
    ///
    /// - Returns: An unowned reference to the loop; the actor must keep the loop alive (store it).
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// This loop as a task executor: `Task(executorPreference: loop) { … }` runs nonisolated work on the loop.
    ///
    /// - Returns: An unowned reference to the loop.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Traps unless the caller runs on the loop's thread (the runtime calls it for `assumeIsolated` and
    /// `preconditionIsolated` when it cannot tell otherwise).
    public func checkIsolated() {
        precondition(
            inEventLoop,
            """
            Expected to run on EventLoop '\(name)', but running on another thread. Code isolated to this loop \
            (an actor whose executor it is, or a loop callback) must be entered with await, post(_:) or a \
            timer; assumeIsolated only works inside the loop's own callbacks.
            """
        )
    }

    /// Whether the caller runs on the loop's thread, and so is isolated to it. Never `nil`: the loop always knows.
    ///
    /// - Returns: ``inEventLoop``.
    public func isIsolatingCurrentContext() -> Bool? {
        inEventLoop
    }
}
