/// Documents of schema 1 as a process's inspector serves them, with every field the console shows: what the loop
/// describers of issue 27 produce, written out.
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
        "stalls":[{"site":"App/Stall.swift:7","label":"stall on purpose","kind":"callback","durationMs":1250.0,\
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

    /// The recorder document of the main loop.
    static let recorder = """
        {"schema":1,"pid":4242,"process":"orders","loops":[{"name":"main","kind":"MainLoop","capacityBytes":262144,\
        "events":[{"atMs":1.0,"kind":"wakeUp"},{"atMs":2.0,"kind":"iteration","busyMs":0.5,"posts":3}]}]}
        """
}
