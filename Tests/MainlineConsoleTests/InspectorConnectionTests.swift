import Foundation
import MainlineInspection
import MainlineInspectorSchema
import MainlineLoop
import Testing
import _MainlineTestSupport

@testable import mainline_console

/// The console's connection to an inspector, kept from one refresh to the next: one the inspector closed meanwhile
/// (it closes a client that asks nothing for a while) is replaced by a new one, not reported as a failure.
@Suite("mainline-console connection")
struct InspectorConnectionTests {
    @Test func aKeptConnectionTheInspectorClosedForAskingNothingIsReplacedAtTheNextAsk() throws {
        let folder = makeTemporaryFolder(prefix: "mainline-console")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var limits = LoopInspector._Limits()
        limits.idleClient = .milliseconds(100)
        let path = folder + "/i.sock"
        let inspector = try LoopInspector.start(socketPath: path, registry: _InspectionRegistry(), limits: limits)
        defer { inspector.stop() }

        var connection: InspectorConnection?
        #expect(
            try InspectorConnection.ask("snapshot", as: InspectorSnapshot.self, path: path, reusing: &connection)
                .document.schema == 1
        )
        let first = try #require(connection)
        // The refresh after a pause: wait until the inspector has closed the first connection (its end hangs up).
        if let waited = waitUntilHungUp(first.descriptor) {
            Issue.record("the inspector did not close the idle connection within \(waited)")
            return
        }

        let answer = try InspectorConnection.ask(
            "snapshot",
            as: InspectorSnapshot.self,
            path: path,
            reusing: &connection
        )
        #expect(answer.document.schema == 1)
        #expect(connection != nil && connection !== first, "a new connection answered, and is kept")
    }
}
