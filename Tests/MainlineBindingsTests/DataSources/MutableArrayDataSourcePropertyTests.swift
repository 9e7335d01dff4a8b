import MainlineBindings
import MainlineTesting
import Testing

/// Random mutations of a `MutableArrayDataSource` inside a multi-row tree: replaying each change set the root
/// delivers on a mirror always reproduces the root's contents.
@MainActor
@Suite("MutableArrayDataSource, property")
struct MutableArrayDataSourcePropertyTests {
    @Test func replayingEveryDeliveredChangeSetReproducesTheRealContents() {
        for seed in UInt64(1)...300 {
            let failure = Self.run(seed: seed)
            #expect(failure == nil, "seed \(seed): \(failure ?? "")")
            if failure != nil { return }
        }
    }

    /// Runs one random sequence; returns a description of the first mismatch, or `nil`.
    static func run(seed: UInt64) -> String? {
        var random = SeededRandomNumberGenerator(seed: seed)
        let loop = TestLoop()
        var next = 0
        func fresh() -> String {
            next += 1
            return "e\(next)"
        }
        let model = ArrayModel((0..<Int.random(in: 0...4, using: &random)).map { _ in fresh() })
        let list = MutableArrayDataSource(model: model, loop: loop) { element, _ in element }
        let root = MultiRowDataSource(
            children: [ArrayDataSource(["header"], loop: loop), list, ArrayDataSource(["f1", "f2"], loop: loop)],
            loop: loop
        )
        let host = MirrorHost(root)
        for iteration in 0..<Int.random(in: 1...12, using: &random) {
            loop.post {
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let count = model.count
                    switch Int.random(in: 0..<12, using: &random) {
                    case 0..<3: model.append(fresh())
                    case 3..<5: model.insert(fresh(), at: Int.random(in: 0...count, using: &random))
                    case 5..<8 where count > 0: model.remove(at: Int.random(in: 0..<count, using: &random))
                    case 8..<10 where count > 0:
                        model.move(
                            from: Int.random(in: 0..<count, using: &random),
                            to: Int.random(in: 0..<count, using: &random)
                        )
                    case 10 where count > 0: model.replace(at: Int.random(in: 0..<count, using: &random), with: fresh())
                    case 11: model.replaceAll(with: (0..<Int.random(in: 0...3, using: &random)).map { _ in fresh() })
                    default: model.append(fresh())
                    }
                }
            }
            loop.runUntilIdle()
            let expected = [["header"] + model.elements + ["f1", "f2"]]
            guard host.rows == expected, host.replayFailures == 0 else {
                return
                    "after iteration \(iteration) the mirror is \(host.rows), the source \(expected); changes: \(host.delivered)"
            }
        }
        return nil
    }
}
