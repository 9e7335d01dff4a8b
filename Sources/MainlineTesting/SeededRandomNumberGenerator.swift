/// A random number generator whose sequence depends on its seed alone — SplitMix64 (Steele, Lea and Flood, 2014) — on
/// every platform and toolchain: the same seed gives the same numbers in every run.
///
/// A `TestSchedule` draws its choices from one. Use one for whatever else a test decides at random, so that a seed
/// replays the whole run: inside `explore(seeds:strategy:checksDeterminism:sourceLocation:_:)`, seed it from the run's
/// schedule — a `SystemRandomNumberGenerator` there is something outside the loop deciding, which the determinism
/// self-check reports.
///
/// ```swift
/// await explore(seeds: 0..<1_000) { schedule in
///     var random = SeededRandomNumberGenerator(seed: schedule.seed)
///     let loop = TestLoop()
///     let cart = Cart(loop: loop)
///     for _ in 0..<Int.random(in: 1...5, using: &random) { cart.add(Item.random(using: &random)) }
///     …
/// }
/// ```
///
/// A value: use one from one thread or task at a time (a copy continues the same sequence on its own).
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`. Callable from any thread.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits. Callable from any thread, on a generator no other thread uses meanwhile.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
