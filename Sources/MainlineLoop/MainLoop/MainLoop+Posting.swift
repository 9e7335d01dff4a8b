import MainlineLoopCore

// Posting from any thread: the calls as users write them (which pass their site), the site-taking requirements a loop
// that wraps this one forwards to, and the idle phase's registration.
extension MainLoop {
    /// Runs `body` on the loop, on the main actor, soon.
    ///
    /// Thread-safe; takes no lock and never blocks; never runs `body` synchronously. Bodies posted from one thread run
    /// in the order they were posted, each exactly once, at most `LoopBudgets.postsPerIteration` per iteration so
    /// that a flood never starves timers. Posting to an idle loop attaches it as a guest (see ``attachAsGuest()``).
    ///
    /// ```swift
    /// DispatchQueue.global().async {
    ///     let result = expensiveComputation()
    ///     MainLoop.main.post { model.result = result }   // runs on the main actor
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - fileID: The caller's file, kept with the job as its site (leave the default).
    ///   - line: The caller's line (leave the default).
    /// - Returns: `true` if `body` will run; `false` once ``stop()`` has been called, or when the loop already holds
    ///   `LoopBudgets.maxPendingPosts` posts (then the refusal is counted). Either way `body` is released without
    ///   running; ``tryPost(_:fileID:line:)`` says which.
    @inlinable @inline(__always) @discardableResult
    public func post(
        _ body: consuming @escaping @MainActor @Sendable () -> Void,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> Bool {
        _post(body, site: LoopSite(fileID: fileID, line: line)) == .accepted
    }

    /// Runs `body` on the loop, soon, with `site` as where it came from: what a loop that wraps this one forwards to.
    /// See `SerialLoop.post(_:from:)`. Thread-safe.
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - site: Where the work comes from.
    /// - Returns: `true` if `body` will run.
    @inlinable @inline(__always) @discardableResult
    public func post(_ body: consuming @escaping @MainActor @Sendable () -> Void, from site: LoopSite) -> Bool {
        _post(body, site: site) == .accepted
    }

    /// Runs `body` on the loop, on the main actor, soon — or says why it will not: the loop is full or stopped.
    ///
    /// Thread-safe; takes no lock and never blocks. Otherwise exactly ``post(_:fileID:line:)``: for producers that shed
    /// or retry when the loop falls behind (`LoopBudgets.maxPendingPosts`).
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - fileID: The caller's file (leave the default).
    ///   - line: The caller's line (leave the default).
    /// - Returns: `PostResult.accepted` if `body` will run; `PostResult.full` or `PostResult.stopped` if it was
    ///   released without running.
    @inlinable @inline(__always)
    public func tryPost(
        _ body: consuming @escaping @MainActor @Sendable () -> Void,
        fileID: StaticString = #fileID,
        line: UInt = #line
    ) -> PostResult {
        _post(body, site: LoopSite(fileID: fileID, line: line))
    }

    /// Runs `body` on the loop, soon — or says why it will not — with `site` as where it came from. See
    /// `SerialLoop.tryPost(_:from:)`. Thread-safe.
    ///
    /// - Parameters:
    ///   - body: The work to run.
    ///   - site: Where the work comes from.
    /// - Returns: What became of `body`.
    @inlinable @inline(__always)
    public func tryPost(_ body: consuming @escaping @MainActor @Sendable () -> Void, from site: LoopSite) -> PostResult
    {
        _post(body, site: site)
    }

    /// Runs `body` once, on the main actor, when an iteration has nothing else pending, right before the loop blocks.
    /// See `SerialLoop.whenIdle(_:from:)`.
    ///
    /// Thread-safe. A registration from outside the loop's callbacks wakes the loop (and attaches an idle loop as a
    /// guest, as ``post(_:fileID:line:)`` does). In owner mode the idle phase runs in libuv's prepare phase; in guest
    /// mode at the end of a pump after which libuv would wait.
    ///
    /// - Parameters:
    ///   - body: The work to run when the loop is idle.
    ///   - site: Where the body was registered (`whenIdle { … }` passes the caller's).
    /// - Returns: The registration, for cancelling (from any thread).
    @discardableResult
    public func whenIdle(_ body: @escaping @MainActor @Sendable () -> Void, from site: LoopSite) -> IdleRegistration {
        let (registration, mustWake) = core.whenIdle(body, site: site)
        if mustWake, !core.posts.wake() { attachAsGuest() }
        return registration
    }

    // Every post goes through `_post`, inlined into the caller. A caller that writes `MainLoop.main.post { … }` holds
    // another module's global across the call it makes, so it would retain and release the loop around it — two atomic
    // operations, about half of a post. For the main loop, the inlined code only reads `isMain` and calls a free
    // function (a static method would cost the caller a metadata access; a `Self` would keep `_post` from being
    // inlined), which reaches `main` inside this module, where a `let` global is borrowed, not retained: no reference
    // counting on the loop at all. Any other loop (the package's tests make their own) is posted to directly.

    /// Posts `body` from `site`: the one path of every post and try-post of this loop. Thread-safe.
    @inlinable @inline(__always)
    func _post(_ body: consuming @escaping @MainActor @Sendable () -> Void, site: LoopSite) -> PostResult {
        if isMain { return _postToMainLoop(body, site: site) }
        return _enqueue(body, site: site)
    }

    /// Enqueues `body` from `site` on this loop's queue, and starts the loop if it is idle. Thread-safe.
    @usableFromInline
    func _enqueue(_ body: consuming @escaping @MainActor @Sendable () -> Void, site: LoopSite) -> PostResult {
        accept(core.post(body, site: site))
    }

    /// Starts the loop for a post that found no waker installed yet (the loop is idle), and says what became of it.
    @inline(__always)
    func accept(_ result: _JobQueue.EnqueueResult) -> PostResult {
        if case .enqueuedWithoutWaker = result { attachAsGuest() }
        return result.postResult
    }
}

/// A post to `MainLoop.main`, which reaches it without retaining it (see `MainLoop._post(_:site:)`). Thread-safe.
@usableFromInline
func _postToMainLoop(_ body: consuming @escaping @MainActor @Sendable () -> Void, site: LoopSite) -> PostResult {
    MainLoop.main._enqueue(body, site: site)
}
