// JobTable — the jobs and the data source tree the renderer shows, on the main loop.
//
// The tree:
//
//     jobs ─(filter, sort)─▶ visible: ArrayModel<Job>
//                              ├─▶ flat:    MutableArrayDataSource<Job, JobRowViewModel>   (one section)
//                              └─▶ grouped: GroupedDataSource<Job, JobStatus>             (a section per status)
//
// `visible` holds the jobs that pass the filter, in sort order, and is kept that way with the smallest mutations:
// a progress tick replaces one element (and moves it if the sort order changed), a filter removes and inserts
// elements, a sort moves them. Both sources follow `visible`: the flat one records each mutation as it happens and
// keeps a cell view model per row; the grouped one (made when grouping is switched on, dropped when it is switched
// off) regroups once per loop iteration and records the difference. Either way the renderer receives one
// `ChangeSet` per iteration naming the rows that changed.

import Mainline

/// The jobs, the filtered and sorted `visible` model, and the sources over it. Must be used on the main actor.
@MainActor
final class JobTable {
    /// What `s` cycles through.
    enum SortKey: CaseIterable {
        /// By name.
        case name
        /// By progress, highest first; then by name.
        case progress
        /// Running, queued, failed, done; then by name.
        case status
    }

    /// What `f` cycles through.
    enum Filter: CaseIterable {
        case all
        case running
        case failed

        func admits(_ job: Job) -> Bool {
            switch self {
            case .all: true
            case .running: job.status == .running
            case .failed: job.status == .failed
            }
        }
    }

    /// Every job, by id, in its latest state.
    private(set) var jobs: [Job]
    /// The jobs that pass ``filter``, in ``sortKey`` order: the model both sources show.
    let visible: ArrayModel<Job>
    /// The one-section source with a cached row view model per row.
    let flat: MutableArrayDataSource<Job, JobRowViewModel>
    /// The source grouped by status while grouping is on.
    private(set) var grouped: GroupedDataSource<Job, JobStatus>?
    private(set) var sortKey = SortKey.name
    private(set) var filter = Filter.all

    /// The loop whose settle phase delivers the sources' change sets.
    private let loop: any Loop

    /// Creates the table over `jobs` (indexed by id), sorted by name, unfiltered, ungrouped.
    ///
    /// - Parameter loop: The main loop, unless a test passes a `TestLoop`.
    init(jobs: [Job], loop: any Loop = MainLoop.main) {
        self.jobs = jobs
        self.loop = loop
        visible = ArrayModel(jobs.sorted { Self.precedes($0, $1, by: .name) })
        flat = MutableArrayDataSource(model: visible, loop: loop) { job, _ in JobRowViewModel(job) }
    }

    /// How many jobs have `status`.
    func count(_ status: JobStatus) -> Int {
        jobs.count(where: { $0.status == status })
    }

    // MARK: Updates from the workers

    /// Takes a job's new state: replaces its row (and moves it if it now sorts elsewhere), or removes or inserts it
    /// when it leaves or enters the filter.
    func update(_ job: Job) {
        guard jobs.indices.contains(job.id), jobs[job.id] != job else { return }
        jobs[job.id] = job
        let current = visible.elements.firstIndex { $0.id == job.id }
        switch (current, filter.admits(job)) {
        case (let index?, true):
            visible.replace(at: index, with: job)
            let target = position(of: job, skipping: index)
            if target != index { visible.move(from: index, to: target) }
        case (let index?, false):
            visible.remove(at: index)
        case (nil, true):
            visible.insert(job, at: position(of: job, skipping: nil))
        case (nil, false):
            break
        }
    }

    // MARK: Keys

    /// `s`: the next sort key, applied as moves of the rows that are out of place.
    func cycleSort() {
        sortKey = Self.next(after: sortKey)
        let target = visible.elements.sorted { Self.precedes($0, $1, by: sortKey) }
        for (index, job) in target.enumerated() {
            // Rows before `index` are in place, so the job is at `index` or after it.
            guard let current = visible.elements.firstIndex(where: { $0.id == job.id }), current != index else {
                continue
            }
            visible.move(from: current, to: index)
        }
    }

    /// `f`: the next filter, applied as removals of the rows it hides and inserts of the rows it shows.
    func cycleFilter() {
        filter = Self.next(after: filter)
        for index in visible.elements.indices.reversed() where !filter.admits(visible.elements[index]) {
            visible.remove(at: index)
        }
        let shown = Set(visible.elements.map(\.id))
        for job in jobs where filter.admits(job) && !shown.contains(job.id) {
            visible.insert(job, at: position(of: job, skipping: nil))
        }
    }

    /// `g`: switches grouping by status on or off.
    ///
    /// - Returns: The grouped source when grouping is now on, `nil` when it is off.
    func toggleGrouping() -> GroupedDataSource<Job, JobStatus>? {
        if grouped == nil {
            grouped = GroupedDataSource(
                model: visible,
                loop: loop,
                groupedBy: \.status,
                title: { $0.name },
                orderedBy: <
            )
        } else {
            grouped = nil  // its listener on `visible` goes with it
        }
        return grouped
    }

    // MARK: Order

    /// Where `job` belongs in `visible`, counted as if the element at `skipping` were not there.
    private func position(of job: Job, skipping: Int?) -> Int {
        visible.elements.indices.count(where: {
            $0 != skipping && Self.precedes(visible.elements[$0], job, by: sortKey)
        })
    }

    private static func precedes(_ a: Job, _ b: Job, by key: SortKey) -> Bool {
        switch key {
        case .name: (a.name, a.id) < (b.name, b.id)
        case .progress: (-a.progress, a.name, a.id) < (-b.progress, b.name, b.id)
        case .status: (a.status, a.name, a.id) < (b.status, b.name, b.id)
        }
    }

    private static func next<T: CaseIterable & Equatable>(after value: T) -> T {
        let all = Array(T.allCases)
        return all[(all.firstIndex(of: value)! + 1) % all.count]
    }
}
