/// Reading a replay line back (`TestSchedule.replayLine` writes it).
extension TestSchedule {
    /// What was wrong with a replay line. A value; thread-safe.
    public struct ReplayLineError: Error, Equatable, CustomStringConvertible {
        /// The line as given.
        public var line: String
        /// What part of it could not be read.
        public var problem: String

        /// The problem and the line, as an issue shows them.
        public var description: String { "Not a Mainline replay line (\(problem)): \"\(line)\"" }
    }

    /// A schedule that makes the choices `line` recorded, then continues by the line's strategy and seed.
    ///
    /// Callable from any thread.
    ///
    /// - Parameter line: A line printed by `explore(seeds:strategy:checksDeterminism:sourceLocation:_:)` or read from
    ///   ``replayLine``, such as `mainline-schedule/1 pct(3) seed=42 choices=1,0,2`.
    /// - Throws: ``ReplayLineError`` naming the part of `line` that could not be read.
    public convenience init(replaying line: String) throws(ReplayLineError) {
        let words = line.split(separator: " ").map(String.init)
        func fail(_ problem: String) -> ReplayLineError { ReplayLineError(line: line, problem: problem) }
        guard words.count == 4, words[0] == Self.replayPrefix else {
            throw fail("expected \"\(Self.replayPrefix) <strategy> seed=<n> choices=<n,…>\"")
        }
        let strategy: Strategy
        switch words[1] {
        case "fifo": strategy = .fifo
        case "random": strategy = .random
        case let word where word.hasPrefix("pct(") && word.hasSuffix(")"):
            guard let depth = Int(word.dropFirst(4).dropLast()), depth >= 1 else { throw fail("pct's depth") }
            strategy = .pct(depth: depth)
        default: throw fail("unknown strategy \"\(words[1])\"")
        }
        guard words[2].hasPrefix("seed="), let seed = UInt64(words[2].dropFirst(5)) else { throw fail("the seed") }
        guard words[3].hasPrefix("choices=") else { throw fail("the choices") }
        let list = words[3].dropFirst(8)
        var choices: [Int] = []
        if list != "-" {
            for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                guard let choice = Int(item), choice >= 0 else { throw fail("choice \"\(item)\"") }
                choices.append(choice)
            }
        }
        self.init(strategy: strategy, seed: seed, replaying: choices)
    }
}
