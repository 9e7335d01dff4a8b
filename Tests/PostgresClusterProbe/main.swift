// mainline-cluster-probe — starts a PostgresTestCluster, reports it, then ends with the cluster still running, the
// way its argument says; one `key=value` per line.
//
// PostgresTestClusterTests runs it as a child process (`mainline-cluster-probe <ending>`) and checks that the cluster
// dies with it: the server's process is gone and its folder deleted.
//
//   killed                 waits for the test to send SIGKILL
//   trapped                fatalError (a trap, as a failed precondition in a test would)
//   exited                 exit(0) inside the cluster's body, so `with`'s own teardown never runs
//   process-group-killed   SIGKILL to its whole process group, as a runner or terminal ending a group would
//   (anything else)        returns from `with` normally

import Foundation
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

let ending = CommandLine.arguments.dropFirst().first ?? "normal"
if ending == "process-group-killed" {
    // A group of its own, so the kill below reaches this probe and whatever it started in its group, not the tests.
    setpgid(0, 0)
}

try await PostgresTestCluster.with { cluster in
    // Written at once (no buffer), since the probe is about to end without flushing anything.
    let report = [
        "directory=\(cluster.directory)",
        "server=\(cluster.serverProcessID() ?? 0)",
        "reaper=\(cluster.reaperProcessID)",
    ]
    FileHandle.standardOutput.write(Data(report.map { $0 + "\n" }.joined().utf8))
    switch ending {
    case "killed":
        while true { pause() }
    case "trapped":
        fatalError("mainline-cluster-probe: a trap with the cluster running, on purpose")
    case "exited":
        exit(0)
    case "process-group-killed":
        kill(0, SIGKILL)
    default:
        break
    }
}
