/// Documents of schema 1 as a process's inspector serves them, with every field the console shows: what the loop
/// describers produce, written out.
enum SnapshotFixtures {
    /// The main loop: counters, a delay histogram, a job running now, one stall with its backtrace and last events,
    /// two slow jobs at one site and one at another, and a repeating timer.
    static func mainLoop(iterations: Int = 1_000) -> String {
        """
        {"name":"main","kind":"MainLoop","state":"running","iterations":\(iterations),"busyPercent":12.5,\
        "postsRun":300,"postsPending":2,"timersFired":40,"settleDeliveries":7,\
        "delay":{"p50Ms":0.02,"p99Ms":1.2,"maxMs":3.1,"samples":200,"buckets":[{"upToMs":0.016,"count":160},\
        {"upToMs":1.024,"count":36},{"upToMs":4.096,"count":4}]},\
        "running":{"site":"App/Workers.swift:42","label":null,"forMs":12.0},\
        "stalls":[{"site":"App/Stall.swift:7","label":"stall on purpose","kind":"callback","durationMs":109.1,\
        "ended":true,"totalMs":1250.0,\
        "ageMs":3000.0,"backtrace":["#0 holdTheLoopOnPurpose(milliseconds:)","#1 closure in main"],\
        "lastEvents":[{"atMs":10.5,"kind":"wakeUp"},{"atMs":11.0,"kind":"slowJob","site":"App/File.swift:12",\
        "durationMs":3.2}]}],\
        "slowest":[{"site":"App/File.swift:12","label":"fetch","kind":"post","durationMs":3.2,"ageMs":100.0},\
        {"site":"App/File.swift:12","label":"fetch","kind":"post","durationMs":5.5,"ageMs":50.0},\
        {"site":"App/Tick.swift:3","label":null,"kind":"timer","durationMs":2.0,"ageMs":400.0}],\
        "timers":[{"site":"App/Tick.swift:3","label":"tick","dueInMs":250.0,"repeating":true},\
        {"site":"App/Expiry.swift:9","label":null,"dueInMs":30000.0,"repeating":false}],\
        "recorder":{"capacityBytes":262144,"events":1234}}
        """
    }

    /// A whole snapshot: the main loop, two mailboxes, three view models, a coordinator and a stack.
    static func snapshot(iterations: Int = 1_000, uptimeSeconds: Double = 12.5) -> String {
        """
        {"schema":1,"pid":4242,"process":"orders","uptimeSeconds":\(uptimeSeconds),"loops":[\(mainLoop(iterations: iterations))],\
        "mailboxes":[{"name":"jobs","kind":"bounded","depth":3,"capacity":64,"dropped":5,"coalesced":0},\
        {"name":null,"kind":"keyed","depth":1,"capacity":null,"dropped":9,"coalesced":9}],\
        "viewModels":[{"type":"ClientViewModel","state":"resumed","id":1},\
        {"type":"ClientViewModel","state":"paused","id":2},{"type":"DeskViewModel","state":"resumed","id":3}],\
        "coordinators":[{"type":"SignUpCoordinator","id":4,"state":"running","stack":["email","PasswordCoordinator (child)"]},\
        {"type":"NavigationStack","id":5,"state":null,"stack":["home","email (SignUpCoordinator)"]}]}
        """
    }

    /// A stall's backtrace as a dashboard's main loop has it, 42 frames: the C library's sleep, the process's own
    /// functions and closures, compiler glue, the loop's machinery and libuv, and the start of the process.
    static let longBacktrace: [String] = {
        var frames = [
            "0x00007f3a1c2e4545 clock_nanosleep + 197 in libc.so.6",
            "0x00007f3a1c2e8e53 nanosleep + 19 in libc.so.6",
            "0x00007f3a1c31a2b9 usleep + 73 in libc.so.6",
            "0x000055d1c0a1b2c3 Dashboard.holdTheLoopOnPurpose(milliseconds: Swift.Int) -> () + 42 in dashboard",
            "0x000055d1c0a1b3d0 closure #1 @Sendable @MainActor () -> () in "
                + "Dashboard.scheduleStallOnPurpose(after: Swift.Duration, holding: Swift.Duration) -> () "
                + "+ 30 in dashboard",
            "0x000055d1c0a1b500 reabstraction thunk helper from @escaping @callee_guaranteed @Sendable () -> () "
                + "+ 20 in dashboard",
        ]
        for index in 0..<30 {
            frames.append(
                "0x000055d1c0b0\(1000 + index) closure #\(index % 3 + 1) () -> () in "
                    + "MainlineLoop._LoopScheduler.runTimers(now: MainlineLoop.LoopInstant) -> Swift.Int "
                    + "+ \(index) in dashboard"
            )
        }
        frames += [
            "0x000055d1c0c01111 uv__run_timers + 53 in dashboard",
            "0x000055d1c0c02222 uv_run + 397 in dashboard",
            "0x000055d1c0a10000 main + 1234 in dashboard",
            "0x00007f3a1c229d8a __libc_start_call_main + 122 in libc.so.6",
            "0x00007f3a1c229e45 __libc_start_main + 133 in libc.so.6",
            "0x000055d1c0a0f0a5 _start + 37 in dashboard",
        ]
        return frames.enumerated().map { "#\($0.offset) \($0.element)" }
    }()

    /// A snapshot of the main loop with one stall not yet seen to end, whose backtrace is ``longBacktrace`` and whose
    /// last events hold an earlier stall (with its own backtrace).
    static func stallWithLongBacktrace() -> String {
        let backtrace = "[" + longBacktrace.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        return """
            {"schema":1,"loops":[{"name":"main","kind":"MainLoop","stalls":[{"site":"App/Stall.swift:7",\
            "label":"stall on purpose","kind":"callback","durationMs":109.1,"ended":false,"totalMs":null,"ageMs":20.0,\
            "backtrace":\(backtrace),"lastEvents":[{"atMs":5.0,"kind":"stall","label":"earlier","durationMs":120.0,"ended":true,\
            "backtrace":\(backtrace)}]}]}]}
            """
    }

    /// The recorder document of the main loop.
    static let recorder = """
        {"schema":1,"pid":4242,"process":"orders","loops":[{"name":"main","kind":"MainLoop","capacityBytes":262144,\
        "events":[{"atMs":1.0,"kind":"wakeUp"},{"atMs":2.0,"kind":"iteration","busyMs":0.5,"posts":3}]}]}
        """
}
