import Foundation
import Testing
import _MainlineTestSupport

@testable import MainlineInspection
@testable import MainlineLoop
@testable import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#endif

/// Owner-only: a client of another user is refused by `SO_PEERCRED`, even when the socket's mode would let it in.
///
/// Acting as another user needs root; CI runs the tests as root. Elsewhere these tests are skipped, saying why.
@Suite(
    "LoopInspector peers",
    .enabled(
        if: geteuid() == 0 && access("/usr/sbin/runuser", X_OK) == 0 && getpwnam("nobody") != nil,
        "connecting as another user (nobody, through runuser) needs root; CI runs the tests as root"
    )
)
struct LoopInspectorPeerTests {
    /// An inspector whose socket another user can reach: its folder is searchable, the socket made `0666` by the test
    /// (so that only the inspector's own check stands in the way).
    final class OpenToEveryone {
        let folder = TemporaryFolder()
        let inspector: LoopInspector
        var path: String { folder.file("i.sock") }

        init() throws {
            chmod(folder.path, 0o755)
            inspector = try LoopInspector.start(
                socketPath: folder.file("i.sock"),
                registry: .init(),
                limits: .keepingSilentClients
            )
            chmod(path, 0o666)
        }

        deinit { inspector.stop() }
    }

    static let nobody = getpwnam("nobody").map { $0.pointee.pw_uid } ?? 65_534

    @Test func aPeerOfAnotherUserGetsOneRefusalLineAndIsDisconnected() async throws {
        let served = try OpenToEveryone()
        let path = served.path
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            [path = path as String] in
            // The child process becomes nobody, then connects and prints what it reads until the inspector closes.
            let nobody = getpwnam("nobody")!.pointee
            guard setgid(nobody.pw_gid) == 0, setuid(nobody.pw_uid) == 0 else { exit(2) }
            do {
                let client = try InspectorTestClient(path: path)
                try? client.send("{\"request\":\"snapshot\"}\n")
                while let line = try client.readLine() { print(line) }
            } catch {
                print("failed: \(error)")
            }
        }
        let printed = result.map { String(decoding: $0.standardOutputContent, as: UTF8.self) } ?? ""
        #expect(
            printed
                == #"{"error":"refused: peer uid \#(Self.nobody) is not this process's owner (uid 0)","schema":1}"#
                + "\n"
        )
        // The owner is served as before.
        #expect(try InspectorTestClient(path: path).ask("snapshot")["schema"] == .int(1))
    }

    @Test func theConsoleRunAsAnotherUserExitsNonZeroWithTheRefusalOnOneLine() async throws {
        let served = try OpenToEveryone()
        // The built console, copied where nobody can run it (the build folder may be in root's home). Copied by `cp`,
        // not by this process: a file this process had open for writing could be inherited by a child another test
        // spawns meanwhile, and executing it would then fail with "Text file busy".
        let console = served.folder.file("mainline-console")
        let copied = try await ChildProcess.run(
            "cp",
            [try ChildProcess.builtProduct("mainline-console"), console],
            searchPath: true
        )
        try #require(copied.status == 0, "cp: \(copied.standardError)")
        chmod(console, 0o755)

        let result = try await ChildProcess.run(
            "/usr/sbin/runuser",
            ["-u", "nobody", "--", console, "--once", "--json", served.path]
        )

        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError
                == "mainline-console: \(served.path) refused: peer uid \(Self.nobody) is not this process's owner "
                + "(uid 0)\n"
        )
    }
}
