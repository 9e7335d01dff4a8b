// JobRowViewModel — the view model of one table row: a job formatted as one fixed-width line. The flat table's
// `MutableArrayDataSource` makes one per row when the renderer first asks and keeps it in its `ViewModelCache` until
// that row changes; the grouped table formats its `Job` items with the same type.

/// One row of the table, formatted.
struct JobRowViewModel {
    /// The column titles, aligned with ``line``.
    static let header = columns("JOB", "WORKER", "STATUS", "PROGRESS")

    /// The row as the terminal shows it: name, worker, status, a 20-cell bar and the percentage.
    let line: String

    init(_ job: Job) {
        let filled = job.progress / 5
        let bar = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled) + "]"
        let percent = String(job.progress)
        line = Self.columns(
            job.name,
            job.worker,
            job.status.name,
            bar + String(repeating: " ", count: 5 - percent.count) + percent + "%"
        )
    }

    private static func columns(_ name: String, _ worker: String, _ status: String, _ progress: String) -> String {
        func pad(_ text: String, _ width: Int) -> String {
            text + String(repeating: " ", count: max(1, width - text.count))
        }
        return pad(name, 16) + pad(worker, 8) + pad(status, 9) + progress
    }
}
