// Workers — one `Thread` per worker, each running its jobs of the plan one after another and placing every new state
// of a job into a `KeyedMailbox` keyed by the job's id.
//
// Why a keyed mailbox rather than `MainLoop.main.post` per step: a progress tick is a state, not an event. Only the
// latest state of each job matters to the table, so when workers outpace the loop (a tiny `--pace-ms`, a busy
// machine) the mailbox keeps one value per job and counts the ones it replaced, and the loop applies one update per
// job per iteration instead of working through a backlog. `place` never blocks the worker, and the mailbox wakes
// the loop once however many values arrive.

import Foundation
import Mainline

/// Starts the worker threads of `plan`; each one places every state its jobs go through into `updates`.
///
/// Thread-safe: the threads share nothing but the mailbox.
///
/// - Parameters:
///   - plan: The jobs, their steps and the one that fails.
///   - pace: How long one progress step takes.
///   - updates: Where the workers leave each job's latest state, keyed by job id.
func startWorkers(plan: JobPlan, pace: Duration, updates: KeyedMailbox<Int, Job>) {
    let seconds = Double(pace.components.seconds) + Double(pace.components.attoseconds) / 1e18
    for worker in 0..<plan.workers {
        let entries = plan.entries(forWorker: worker)
        let thread = Thread {
            for entry in entries {
                var job = entry.job
                job.status = .running
                updates.place(key: job.id, value: job)
                for step in 1...entry.steps {
                    Thread.sleep(forTimeInterval: seconds)  // the simulated work
                    job.progress = step * 100 / entry.steps
                    if step == entry.failsAfterStep {
                        job.status = .failed
                    } else if step == entry.steps {
                        job.status = .done
                    }
                    updates.place(key: job.id, value: job)
                    if job.status == .failed { break }
                }
            }
        }
        thread.name = "worker w\(worker + 1)"
        thread.start()
    }
}
