// stream-latency: publish → deliver across two processes, MainlinePostgres side by side with plain NOTIFY.
//
//     swift run -c release --package-path Benchmarks stream-latency [options]
//
//   --rate 1000             events/s of the latency phase (open loop)
//   --warm-up 2             seconds of warm-up before the measured events (latency phase)
//   --seconds 10            seconds measured (latency phase)
//   --tasks 8               publishing tasks of the sustained phase
//   --batched-tasks 64      publishing tasks of the batched peer's sustained phase (group commit)
//   --batch 1               events per publish(contentsOf:) call of the batched peer (1: plain publish)
//   --sustained-warm-up 1   seconds of warm-up (sustained phase)
//   --sustained-seconds 5   seconds measured (sustained phase)
//   --drain-timeout 30      seconds to wait for the last events after the publisher exits
//   --peers mainline,batched,notify  the peers, in order (batched runs in the sustained phase only)
//   --mode latency          latency: the phases above; group: consumer groups beside a SKIP LOCKED queue (below)
//   --group-events 50000    group mode: events in each phase's backlog
//   --group-batch 100       group mode: the group's window and the queue's LIMIT k
//   --group-lease 30        group mode: the group's lease, in seconds (the library's default)
//   --group-kills 5         group mode: phases with a kill -9, per peer (takeover median and maximum over them)
//
// The group mode writes a backlog of events, then has two member processes (this program again, with a hidden
// `--member`) handle it: Mainline's consumer group, and the hand-rolled `FOR UPDATE SKIP LOCKED` queue; each once as
// is and then `--group-kills` times with one member killed (`kill -9`) part-way.
//
// Starts a throwaway PostgreSQL cluster, then per phase and peer: the receiver here, the publisher (`stream-load`) as
// a child process. Prints Markdown tables (Benchmarks/README.md explains them). Exits 1 when a peer's books do not
// balance (Mainline: anything lost, repeated or out of order; NOTIFY: anything lost or repeated), 2 on any other
// failure. Missing the p99 target is printed, not a failure: figures are read on a quiet machine, not in CI.

import Foundation
import MainlineLoop
import StreamWire
import _MainlineTestSupport

/// The program.
@main
@MainActor
enum StreamLatency {
    /// Parses the command line, runs the phases, prints the tables.
    static func main() async {
        do {
            let arguments = try Arguments(CommandLine.arguments.dropFirst())
            // The receiver's mailbox (and a group member's) is observed on the main loop, hosted as a guest of this
            // async main (as in any service with one).
            MainLoop.main.attachAsGuest()
            if arguments.values["member"] != nil {
                try await runMember(MemberSettings(arguments))
                exit(0)
            }
            let settings = try Settings(arguments)
            let intact = try await PostgresTestCluster.with { cluster in
                let version = try await cluster.psql("SHOW server_version").trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
                print(
                    "stream-latency: PostgreSQL \(version) (throwaway cluster: fsync and synchronous_commit off), "
                        + "\(ProcessInfo.processInfo.activeProcessorCount) cores, load 1 min \(loadAverage() ?? 0)"
                )
                if settings.mode == .group { return try await runGroupMode(on: cluster, settings: settings) }
                var latency: [PhaseResult] = []
                for peer in settings.peers where peer != .batched {
                    latency.append(try await runPhase(peer, .paced, on: cluster, settings: settings))
                }
                var sustained: [PhaseResult] = []
                for peer in settings.peers {
                    sustained.append(try await runPhase(peer, .flood, on: cluster, settings: settings))
                }
                print("\n" + Table.latency(latency, settings: settings) + "\n")
                print(Table.breakdown(latency) + "\n")
                print(Table.sustained(sustained, settings: settings) + "\n")
                if let ratios = Table.ratios(latency: latency, sustained: sustained) { print(ratios) }
                if let mainline = latency.first(where: { $0.peer == .mainline }) {
                    let p99 = mainline.latency.at(0.99)
                    let met = p99 < settings.targetP99
                    print(
                        "Mainline p99 \(Table.ms(p99)) ms: target < \(Table.ms(settings.targetP99)) ms \(met ? "met" : "MISSED")"
                    )
                }
                let broken = (latency + sustained).filter { !$0.isIntact }
                for result in broken {
                    print(
                        "BOOKS DO NOT BALANCE: \(result.peer.rawValue) \(result.shape.rawValue): lost / dup / out of order "
                            + "\(Table.books(result)), resyncs \(result.books.resyncs), malformed \(result.books.malformed), "
                            + "publish failures \(result.report.failed)"
                    )
                }
                return broken.isEmpty
            }
            exit(intact ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("stream-latency: \(error)\n".utf8))
            exit(2)
        }
    }
}
