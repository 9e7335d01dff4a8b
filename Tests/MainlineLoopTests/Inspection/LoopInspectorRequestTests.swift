import Foundation
import MainlineInspectorSchema
import MainlineTesting
import Testing
import _MainlineTestSupport

@testable import MainlineInspection
@testable import MainlineLoop
@testable import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#endif

/// What `LoopInspector` does with requests and clients it did not expect: bad lines, long lines, too many clients,
/// clients that vanish mid-line, never finish a line, never send or never read. Each gets a line or is closed; the
/// inspector goes on serving everyone else, and nothing reaches the process.
@Suite("LoopInspector requests")
struct LoopInspectorRequestTests {
    /// An inspector on a registry of its own, in a folder of its own.
    final class Served {
        let folder = TemporaryFolder()
        let registry = _InspectionRegistry()
        let inspector: LoopInspector

        init(limits: LoopInspector._Limits = .keepingSilentClients) throws {
            inspector = try LoopInspector.start(socketPath: folder.file("i.sock"), registry: registry, limits: limits)
        }

        deinit { inspector.stop() }

        func client() throws -> InspectorTestClient { try InspectorTestClient(path: folder.file("i.sock")) }
    }

    /// The error text of an answer, or `nil` when it is not an error line of schema 1.
    static func error(_ answer: JSONTree) -> String? {
        guard answer["schema"] == .int(1), answer.keys == ["schema", "error"] else { return nil }
        return answer["error"]?.stringValue
    }

    /// Bad request lines, and how the error line that answers each begins.
    static let badRequests: [([UInt8], String)] = [
        (Array("hello\n".utf8), "the request is not JSON ("),
        (Array("{\"request\":\"snapshot\"\n".utf8), "the request is not JSON ("),
        ([0xFF, 0xFE, 0x00, 0x80, 0x0A], "the request is not UTF-8 text"),
        (Array("{\"request\":\"shutdown\"}\n".utf8), "unknown request \"shutdown\"; the requests are \"snapshot\" and"),
        (Array("{\"ask\":\"snapshot\"}\n".utf8), "a request is an object with a \"request\" string"),
        (Array("[\"snapshot\"]\n".utf8), "a request is an object with a \"request\" string"),
        (Array("{\"request\":42}\n".utf8), "a request is an object with a \"request\" string"),
        (Array(String(repeating: "[", count: 100).utf8) + [0x0A], "the request is not JSON ("),
        (Array(String(repeating: "[", count: 4_000).utf8) + [0x0A], "the request is not JSON ("),
    ]

    @Test(arguments: badRequests)
    func aBadRequestIsAnsweredWithOneErrorLineAndTheClientIsServedAfter(line: [UInt8], reason: String) throws {
        let served = try Served()
        let client = try served.client()

        try client.send(bytes: line)
        let answer = try client.answer()

        let error = try #require(Self.error(answer), "not an error line: \(answer)")
        #expect(error.hasPrefix(reason), "\(error)")
        #expect(try client.ask("snapshot")["schema"] == .int(1), "the same client is served after it")
    }

    @Test func aLineLongerThanTheLimitIsAnsweredOnceAndSkippedToItsLineBreak() throws {
        let served = try Served()
        let client = try served.client()
        // 10 KiB without a line break, in pieces, then its end and a good request in the same write.
        for _ in 0..<10 { try client.send(String(repeating: "x", count: 1_024)) }
        try client.send("still the same line\n{\"request\":\"snapshot\"}\n")

        let error = try #require(Self.error(try client.answer()))
        #expect(error == "the request line is longer than 4096 bytes; it was skipped")
        #expect(try client.answer()["schema"] == .int(1))
    }

    @Test func aLineOfExactlyTheLimitIsRead() throws {
        let served = try Served()
        let client = try served.client()
        let request = "{\"request\":\"snapshot\"}"
        try client.send(request + String(repeating: " ", count: 4_096 - request.utf8.count) + "\n")
        #expect(try client.answer()["loops"] == .array([]))
    }

    @Test func requestsSentTogetherAreAnsweredInOrderAndBlankLinesAskNothing() throws {
        let served = try Served()
        let client = try served.client()
        try client.send("{\"request\":\"recorder\"}\r\n\n\n{\"request\":\"nope\"}\n{\"request\":\"snapshot\"}\n")

        #expect(try client.answer()["loops"] == .array([]))
        #expect(Self.error(try client.answer())?.hasPrefix("unknown request \"nope\"") == true)
        #expect(try client.answer()["mailboxes"] == .array([]))
    }

    @Test func clientsBeyondTheLimitAreRefusedWithALineAndRoomIsMadeWhenOneLeaves() throws {
        var limits = LoopInspector._Limits.keepingSilentClients
        limits.clients = 2
        let served = try Served(limits: limits)
        var first: InspectorTestClient? = try served.client()
        let second = try served.client()
        // Answered: both were accepted before the third connects.
        #expect(try first?.ask("snapshot")["schema"] == .int(1))
        #expect(try second.ask("snapshot")["schema"] == .int(1))

        let third = try served.client()
        #expect(
            try third.readLine()
                == #"{"error":"refused: 2 clients are attached already; detach one and try again","schema":1}"#
        )
        #expect(try third.readLine() == nil, "then it is closed")

        first = nil
        // The inspector notices the departure at its next poll; a client that connects after that is served. Wait on
        // that progress: each refusal is a turn of the inspector's loop.
        var standStill = StandStill<Int>(limit: .seconds(60))
        var refusals = 0
        while true {
            let next = try served.client()
            try next.send("{\"request\":\"snapshot\"}\n")
            let answer = try next.answer()
            if answer["schema"] == .int(1), Self.error(answer) == nil { break }
            refusals += 1
            if standStill.hasStoodStill(0) {
                Issue.record("a client was refused \(refusals) times since one of two left: \(answer)")
                return
            }
        }
        #expect(try second.ask("snapshot")["schema"] == .int(1))
    }

    @Test func aClientThatDisconnectsMidLineLeavesTheInspectorServing() throws {
        let served = try Served()
        do {
            let leaving = try served.client()
            try leaving.send("{\"request\":\"snap")
        }
        let client = try served.client()
        #expect(try client.ask("snapshot")["schema"] == .int(1))
    }

    @Test func aLineLeftUnfinishedIsAnsweredAndClosedAfterTheLimit() throws {
        var limits = LoopInspector._Limits.keepingSilentClients
        limits.unfinishedRequest = .milliseconds(200)
        let served = try Served(limits: limits)
        let slow = try served.client()
        try slow.send("{\"request\":")

        let error = try #require(Self.error(try slow.answer()))
        #expect(error == "the request line was not finished within 0.2 seconds; closing the connection")
        #expect(try slow.readLine() == nil)
        #expect(try served.client().ask("snapshot")["schema"] == .int(1))
    }

    @Test func clientsThatSendNothingAreToldSoAndClosedAfterTheLimitAndTheirSlotsServeOthers() throws {
        var limits = LoopInspector._Limits.keepingSilentClients
        limits.clients = 2
        limits.idleClient = .milliseconds(200)
        let served = try Served(limits: limits)
        // One attaches and never sends; one asks once, then sends nothing more. Together they take every slot.
        let silent = try served.client()
        let askedOnce = try served.client()
        #expect(try askedOnce.ask("snapshot")["schema"] == .int(1))

        // Each is told, then closed (a read waits for that; a server that never closes them fails it after 60 s).
        let told = #"{"error":"no request within 0.2 seconds; closing the connection","schema":1}"#
        #expect(try silent.readLine() == told)
        #expect(try silent.readLine() == nil)
        #expect(try askedOnce.readLine() == told)
        #expect(try askedOnce.readLine() == nil)
        // Both slots are free: the inspector dropped each connection when it wrote its last line.
        let first = try served.client()
        let second = try served.client()
        #expect(try first.ask("snapshot")["schema"] == .int(1))
        #expect(try second.ask("recorder")["schema"] == .int(1))
    }

    @Test func aClientThatNeverReadsIsClosedWithoutHoldingUpOthers() throws {
        var limits = LoopInspector._Limits.keepingSilentClients
        limits.stalledWrite = .milliseconds(300)
        let served = try Served(limits: limits)
        // Large answers: one fills the client's socket buffers many times over.
        let big = InspectedFixture(
            MailboxSummary(
                name: String(repeating: "m", count: 1 << 20),
                kind: "bounded",
                depth: 0,
                capacity: 1,
                dropped: 0,
                coalesced: 0
            )
        )
        .register(in: served.registry, .mailboxes)
        let stuck = try served.client()
        for _ in 0..<8 { try stuck.send("{\"request\":\"snapshot\"}\n") }

        // Meanwhile another client is served, while the first one's answer waits. (A small answer: one the socket
        // takes at once, so that this client's own pace — the machine may be busy — cannot make it a slow reader.)
        let other = try served.client()
        #expect(try other.ask("recorder")["loops"] == .array([]))

        // The inspector gives up on the client that does not read: its end hangs up (without this client reading).
        if let waited = waitUntilHungUp(stuck.descriptor) {
            Issue.record("the client that never reads is still connected after \(waited)")
        }
        withExtendedLifetime(big) {}
        #expect(try other.ask("recorder")["schema"] == .int(1))
    }

    @Test func garbageFromManyClientsAtOnceNeverStopsTheInspector() async throws {
        let served = try Served()
        let path = served.folder.file("i.sock")
        await withTaskGroup(of: Void.self) { group in
            for seed in 0..<12 {
                group.addTask {
                    var generator = SeededRandomNumberGenerator(seed: UInt64(seed))
                    guard let client = try? InspectorTestClient(path: path) else { return }
                    for _ in 0..<20 {
                        let bytes = (0..<Int.random(in: 1...600, using: &generator)).map { _ in
                            UInt8.random(in: 0...255, using: &generator)
                        }
                        _ = try? client.send(bytes: bytes)
                    }
                }
            }
        }
        #expect(try served.client().ask("snapshot")["schema"] == .int(1))
    }
}
