@testable import MainlineLoop
@testable import MainlineLoopCore

/// The queue's producer calls without a site, for the tests of the queue and the scheduler, whose jobs' sites do not
/// matter (`RecorderSiteTests` checks that sites travel).
extension _JobQueue {
    func enqueue(_ job: @escaping Job) -> EnqueueResult {
        enqueue(job, site: LoopSite())
    }

    func enqueueJob(_ job: @escaping Job) -> EnqueueResult {
        enqueueJob(job, site: LoopSite())
    }
}
