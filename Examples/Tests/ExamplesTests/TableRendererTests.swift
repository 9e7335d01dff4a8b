import MainlineTesting
import Testing

@testable import dashboard

/// The dashboard's table, driven on a `TestLoop` and drawn on a fake screen: which lines each loop iteration
/// rewrites, and that the lines it leaves alone already show the right rows.
@MainActor
@Suite("Example: dashboard's partial redraw")
struct TableRendererTests {
    /// A screen that understands the two sequences the renderer writes: `ESC[row;1H` and `ESC[2K` + text.
    @MainActor
    final class FakeScreen {
        /// The text of each row written so far.
        private(set) var rows: [Int: String] = [:]
        /// The rows the last write rewrote, in order.
        private(set) var lastWrite: [Int] = []

        func write(_ output: String) {
            lastWrite = []
            var row = 0
            for token in output.components(separatedBy: "\u{1B}[").dropFirst() {
                if token.hasPrefix("2K") {
                    rows[row] = String(token.dropFirst(2))
                    lastWrite.append(row)
                } else if token.hasSuffix("H"), let number = Int(token.prefix { $0 != ";" }) {
                    row = number
                }
            }
        }

        /// The rows from `first` down to the first empty one.
        func table(from first: Int) -> [String] {
            Array((first...).lazy.map { self.rows[$0] ?? "" }.prefix { !$0.isEmpty })
        }
    }

    static let firstRow = 4

    let loop = TestLoop()
    let screen = FakeScreen()
    let table: JobTable
    let renderer: TableRenderer

    init() {
        let plan = JobPlan(jobs: 10, workers: 3, seed: 9)
        table = JobTable(jobs: plan.entries.map(\.job), loop: loop)
        renderer = TableRenderer(firstRow: Self.firstRow, write: screen.write)
        renderer.show(table.flat) { $0.line }
    }

    /// What a fresh draw of the source on show would put on screen.
    func expectedTable() -> [String] {
        guard let grouped = table.grouped else { return table.visible.elements.map { JobRowViewModel($0).line } }
        return grouped.groups.flatMap { ["== \($0.key.name) =="] + $0.elements.map { JobRowViewModel($0).line } }
    }

    func job(_ id: Int, _ status: JobStatus, _ progress: Int) -> Job {
        var job = table.jobs[id]
        job.status = status
        job.progress = progress
        return job
    }

    @Test func aProgressTickRewritesOnlyItsRowsLine() {
        table.update(job(3, .running, 40))
        loop.runIteration()
        let row = table.visible.elements.firstIndex { $0.id == 3 }!
        #expect(screen.lastWrite == [Self.firstRow + row])
        #expect(screen.table(from: Self.firstRow) == expectedTable())
    }

    @Test func aProgressTickInsideAGroupRewritesOneLineThoughTheGroupRecordsADeleteAndAnInsert() {
        table.update(job(3, .running, 10))
        table.update(job(5, .running, 10))
        renderer.show(table.toggleGrouping()!) { JobRowViewModel($0).line }
        loop.runIteration()
        #expect(screen.table(from: Self.firstRow) == expectedTable())

        table.update(job(3, .running, 60))
        loop.runIteration()
        let line = expectedTable().firstIndex(of: JobRowViewModel(table.jobs[3]).line)!
        #expect(screen.lastWrite == [Self.firstRow + line])
        #expect(screen.table(from: Self.firstRow) == expectedTable())
    }

    @Test func manyTicksInOneIterationAreOneRedraw() {
        let before = renderer.counters
        for progress in stride(from: 10, through: 90, by: 10) { table.update(job(1, .running, progress)) }
        table.update(job(2, .running, 5))
        loop.runIteration()
        #expect(renderer.counters.redraws == before.redraws + 1)
        #expect(renderer.counters.lastRedraw == 2)
        #expect(screen.table(from: Self.firstRow) == expectedTable())
    }

    @Test func aGroupedSourceSwitchedOffIsReleasedThoughItStillHasTheRenderersDisposedObserver() throws {
        weak let grouped = table.toggleGrouping()
        renderer.show(try #require(grouped)) { JobRowViewModel($0).line }
        #expect(table.toggleGrouping() == nil)
        renderer.show(table.flat) { $0.line }
        #expect(grouped == nil)
        #expect(screen.table(from: Self.firstRow) == expectedTable())
    }

    @Test func aSeededRunOfUpdatesAndKeysLeavesTheScreenEqualToAFreshDrawAfterEveryIteration() {
        var random = SplitMix64(seed: 2024)
        for iteration in 0..<400 {
            switch random.next() % 20 {
            case 0: table.cycleSort()
            case 1: table.cycleFilter()
            case 2:
                if let grouped = table.toggleGrouping() {
                    renderer.show(grouped) { JobRowViewModel($0).line }
                } else {
                    renderer.show(table.flat) { $0.line }
                }
            default:
                for _ in 0..<(1 + random.next() % 3) {
                    let id = Int(random.next() % 10)
                    let status = JobStatus.allCases[Int(random.next() % 4)]
                    table.update(job(id, status, Int(random.next() % 101)))
                }
            }
            loop.runIteration()
            #expect(screen.table(from: Self.firstRow) == expectedTable(), "iteration \(iteration)")
            #expect(screen.lastWrite.count == renderer.counters.lastRedraw, "iteration \(iteration)")
            #expect(renderer.counters.resyncs == 0)
        }
    }
}
