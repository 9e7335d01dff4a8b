import CMainlineShims
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension PostgresTestCluster {
    /// The process that stops a cluster's server and deletes its folder once the process that made the cluster has
    /// let go of it — by ``release()``, or by ending in any way at all (a trap, `SIGKILL`, `exit`).
    ///
    /// Why a process of its own: `pg_ctl start` daemonizes the server (it is reparented to init, in a session of its
    /// own), so no cleanup in the test process runs when a trap or `SIGKILL` ends it, and `PR_SET_PDEATHSIG` would not
    /// help either: the server runs as the `postgres` user (the kernel clears the setting on a change of credentials)
    /// and is a grandchild, not a child. What the kernel does on every ending is close the dying process's
    /// descriptors. So the reaper, a small `/bin/sh` script, reads a pipe whose only write end the test process holds
    /// (close-on-exec, so neither the server nor any other child inherits it); end of file means "the cluster's
    /// owner is gone or done", and the reaper then runs the one teardown both paths share (``script``).
    ///
    /// The reaper starts in a session of its own (`setsid`), so Ctrl-C or a runner killing the test's process group
    /// does not take it along, and ignores the signals a terminal or a polite shutdown sends. It never outlives a
    /// normal teardown: ``release()`` waits for it and reaps it.
    ///
    /// All operations on `_Reaper` are thread-safe; ``release()`` is called once.
    final class _Reaper: Sendable {
        /// The reaper's process id.
        let processID: pid_t
        private let process: ChildProcess
        /// The write end of the pipe the reaper reads; close-on-exec. Closed once, by `release()`.
        private let writeEnd: Int32
        private let directory: String
        private let stopCommand: [String]

        /// Starts the reaper of the cluster in `directory`, whose server `stopCommand` (`pg_ctl`, after `runuser` when
        /// the server runs as another user) stops. Call it as soon as the folder exists, before anything can start
        /// a server in it.
        ///
        /// - Throws: ``ChildProcess/SpawnError`` when the pipe or the process cannot be made.
        init(directory: String, stopCommand: [String]) throws {
            var ends: [Int32] = [-1, -1]
            guard mainline_pipe_cloexec(&ends) == 0 else {
                throw ChildProcess.SpawnError(executable: "/bin/sh", code: errno)
            }
            defer { close(ends[0]) }  // the reaper has its own copy, as its standard input
            do {
                process = try ChildProcess(
                    "/bin/sh",
                    Self.arguments(directory: directory, stopCommand: stopCommand),
                    standardInput: ends[0],
                    newSession: true
                )
            } catch {
                close(ends[1])
                throw error
            }
            processID = process.pid
            writeEnd = ends[1]
            self.directory = directory
            self.stopCommand = stopCommand
        }

        /// Lets the reaper stop the server and delete the folder, and waits until it has (and has exited).
        ///
        /// Should the reaper have been killed before it finished, the same teardown runs once more here, so the folder
        /// is gone when this returns either way. Call it once, from any thread; it blocks only a thread of its own.
        func release() async {
            close(writeEnd)
            _ = await process.finish()
            if FileManager.default.fileExists(atPath: directory) {
                // Standard input is /dev/null here: end of file at once, so the script goes straight to the teardown.
                _ = try? await ChildProcess.run(
                    "/bin/sh",
                    Self.arguments(directory: directory, stopCommand: stopCommand)
                )
            }
        }

        private static func arguments(directory: String, stopCommand: [String]) -> [String] {
            ["-c", script, "mainline-pg-reaper", directory] + stopCommand
        }

        /// The reaper: `$1` is the cluster's folder, the rest the command that runs `pg_ctl`.
        ///
        /// Every step is bounded: `pg_ctl stop -m immediate` waits at most 30 s; should the server still run after it
        /// (pg_ctl failed or timed out), it is killed with its process group (the postmaster leads one: pg_ctl starts
        /// it with `setsid`) — only if `postmaster.pid` names a process whose working folder is this cluster's data, so
        /// a stale pid file never kills a stranger. The backends also exit by themselves once the postmaster is gone.
        ///
        /// One case it cannot cover: a `pg_ctl start` still running when the test process dies may start the server
        /// after the folder is deleted; the server then fails on its missing files, or runs on a deleted folder.
        static let script = #"""
            trap '' HUP INT QUIT TERM PIPE
            cd /
            while read -r _; do :; done
            dir=$1
            shift
            "$@" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1
            pid=$(sed -n 1p "$dir/data/postmaster.pid" 2>/dev/null)
            case $pid in
            '' | *[!0-9]*) ;;
            *)
                if [ "$(readlink "/proc/$pid/cwd")" = "$dir/data" ]; then
                    kill -KILL -"$pid" 2>/dev/null
                    kill -KILL "$pid" 2>/dev/null
                fi
                ;;
            esac
            rm -rf -- "$dir"
            """#
    }
}
