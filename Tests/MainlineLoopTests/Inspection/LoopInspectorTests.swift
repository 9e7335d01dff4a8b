import Foundation
import MainlineInspectorSchema
import Testing

@testable import MainlineInspection
@testable import MainlineLoop
@testable import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#endif

/// `LoopInspector` over a real Unix domain socket: what it answers, how it creates and removes its socket, and which
/// paths it refuses.
///
/// Each test serves a registry of its own (the registry is the seam: what registers in it is what the process's loops
/// and objects would register).
@Suite("LoopInspector")
struct LoopInspectorTests {
    @Test func aSnapshotCarriesTheProcessAndEveryRegisteredObjectInRegistrationOrder() throws {
        let folder = TemporaryFolder()
        let registry = _InspectionRegistry()
        let loop = InspectedFixture.loop(name: "main").register(in: registry, .loops)
        // Objects other than loops register once an inspector has started.
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }
        let mailboxes = ["jobs", "quotes"].map {
            InspectedFixture(
                MailboxSummary(name: $0, kind: "bounded", depth: 1, capacity: nil, dropped: 0, coalesced: 0)
            )
            .register(in: registry, .mailboxes)
        }
        let viewModel = InspectedFixture(ViewModelSummary(type: "ClockViewModel", state: "resumed", id: 1))
            .register(in: registry, .viewModels)
        let coordinator = InspectedFixture(CoordinatorSummary(type: "NavigationStack", id: 2, state: nil, stack: []))
            .register(in: registry, .coordinators)

        let client = try InspectorTestClient(path: folder.file("i.sock"))
        let snapshot = try client.ask("snapshot", as: InspectorSnapshot.self)

        #expect(snapshot.schema == 1)
        #expect(snapshot.pid == Int(getpid()))
        let process = CommandLine.arguments[0].split(separator: "/").last.map(String.init)
        #expect(snapshot.process == process)
        #expect((snapshot.uptimeSeconds ?? 0) > 0)
        #expect(snapshot.loops == [loop.summary])
        #expect(snapshot.mailboxes == mailboxes.map(\.summary))
        #expect(snapshot.viewModels == [viewModel.summary])
        #expect(snapshot.coordinators == [coordinator.summary])
        // The keys the article documents, each present.
        #expect(
            try client.ask("snapshot").keys
                == [
                    "schema", "pid", "process", "uptimeSeconds", "loops", "mailboxes", "viewModels", "coordinators",
                    "streams",
                ]
        )
    }

    @Test func theRecorderAnswerAsksEveryLoopForItsRecorder() throws {
        let folder = TemporaryFolder()
        let registry = _InspectionRegistry()
        let loops = ["main", "io"].map { InspectedFixture.loop(name: $0).register(in: registry, .loops) }
        InspectedFixture(MailboxSummary(name: "jobs", kind: "bounded", depth: 0, capacity: 1, dropped: 0, coalesced: 0))
            .register(in: registry, .mailboxes)
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }

        let client = try InspectorTestClient(path: folder.file("i.sock"))
        let recorder = try client.ask("recorder", as: InspectorRecorderDocument.self)

        #expect(try client.ask("recorder").keys == ["schema", "pid", "process", "loops"])
        #expect(recorder.loops == loops.compactMap(\.recorder))
    }

    @Test func objectsThatAreGoneAreNotInTheNextSnapshot() throws {
        let folder = TemporaryFolder()
        let registry = _InspectionRegistry()
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }
        var mailbox: InspectedFixture? = InspectedFixture(
            MailboxSummary(name: "jobs", kind: "bounded", depth: 0, capacity: 1, dropped: 0, coalesced: 0)
        )
        mailbox?.register(in: registry, .mailboxes)
        let client = try InspectorTestClient(path: folder.file("i.sock"))
        #expect(try client.ask("snapshot")["mailboxes"]?.arrayValue?.count == 1)

        mailbox = nil

        #expect(try client.ask("snapshot")["mailboxes"] == .array([]))
    }

    @MainActor
    @Test func theInspectorAnswersWhileTheMainActorIsBlocked() throws {
        let folder = TemporaryFolder()
        let registry = _InspectionRegistry()
        let loop = InspectedFixture.loop(name: "main").register(in: registry, .loops)
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }

        // The main actor waits here, as a stalled main loop would, until a client on another thread has its answer.
        let answered = DispatchSemaphore(value: 0)
        let answer = _Locked<Result<InspectorSnapshot, any Error>?>(nil)
        let path = folder.file("i.sock")
        Thread.detachNewThread {
            let snapshot = Result { try InspectorTestClient(path: path).ask("snapshot", as: InspectorSnapshot.self) }
            answer.withLock { $0 = snapshot }
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 60) == .success, "no answer while the main actor was blocked")
        // The client's error, if it had one, is what the failure says.
        let snapshot = try #require(answer.withLock { $0 }).get()
        #expect(snapshot.loops == [loop.summary])
    }

    @Test func startingActivatesTheRegistry() throws {
        let folder = TemporaryFolder()
        let registry = _InspectionRegistry()
        #expect(!registry.isActive)
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: registry,
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }
        #expect(registry.isActive)
    }

    @Test func theSocketIsOwnerOnlyFromTheStart() throws {
        let folder = TemporaryFolder()
        let inspector = try LoopInspector.start(
            socketPath: folder.file("i.sock"),
            registry: .init(),
            limits: .keepingSilentClients
        )
        defer { inspector.stop() }

        var info = stat()
        #expect(lstat(folder.file("i.sock"), &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o600, "mode \(String(info.st_mode & 0o777, radix: 8))")
    }

    @Test func stopRemovesTheSocketDisconnectsClientsAndIsIdempotent() throws {
        let folder = TemporaryFolder()
        let path = folder.file("i.sock")
        let inspector = try LoopInspector.start(socketPath: path, registry: .init(), limits: .keepingSilentClients)
        let client = try InspectorTestClient(path: path)
        #expect(try client.ask("snapshot")["schema"] == .int(1))

        inspector.stop()

        #expect(access(path, F_OK) != 0 && errno == ENOENT, "the socket file is gone")
        #expect(try client.readLine() == nil, "the client was disconnected")
        inspector.stop()  // nothing more to do, and no trap
        #expect(throws: InspectorTestClient.Failure.self) { try InspectorTestClient(path: path) }
    }

    @Test func theInspectorServesFromItsOwnLoopAndStoppingClosesEveryHandleItOpenedThere() throws {
        let folder = TemporaryFolder()
        let path = folder.file("i.sock")
        let inspector = try LoopInspector.start(socketPath: path, registry: .init(), limits: .keepingSilentClients)
        let clients = try (0..<3).map { _ in try InspectorTestClient(path: path) }
        for client in clients { #expect(try client.ask("snapshot")["schema"] == .int(1)) }
        // The listener's poll handle and one per client, on the inspector's loop.
        let live = _UVResources.live(of: inspector.loop)
        #expect(live.handles == 1 + clients.count, "\(live)")

        inspector.stop()

        #expect(_UVResources.live(of: inspector.loop) == _UVResources.Counts(), "every handle closed and freed")
        #expect(inspector.loop.loopCloseResult == 0, "libuv closed the loop: no handle of the inspector's was open")
        withExtendedLifetime(clients) {}
    }

    @Test func releasingTheInspectorStopsIt() throws {
        let folder = TemporaryFolder()
        let path = folder.file("i.sock")
        var inspector: LoopInspector? = try LoopInspector.start(
            socketPath: path,
            registry: .init(),
            limits: .keepingSilentClients
        )
        #expect(inspector != nil)
        inspector = nil
        #expect(access(path, F_OK) != 0, "the socket file is gone")
    }

    @Test func stopLeavesAFileThatReplacedTheSocketAlone() throws {
        let folder = TemporaryFolder()
        let path = folder.file("i.sock")
        let inspector = try LoopInspector.start(socketPath: path, registry: .init(), limits: .keepingSilentClients)
        unlink(path)
        #expect(FileManager.default.createFile(atPath: path, contents: Data("mine".utf8)))

        inspector.stop()

        #expect(FileManager.default.contents(atPath: path) == Data("mine".utf8))
    }

    @Test func aSocketLeftByACrashedProcessIsReplaced() throws {
        let folder = TemporaryFolder()
        let path = folder.file("i.sock")
        // A socket file nobody listens on: bound, then closed without unlinking, as a crashed process leaves it.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(LoopInspector._Listener.withAddress(of: path) { bind(stale, $0, $1) } == 0)
        close(stale)
        #expect(access(path, F_OK) == 0)

        let inspector = try LoopInspector.start(socketPath: path, registry: .init(), limits: .keepingSilentClients)
        defer { inspector.stop() }

        #expect(try InspectorTestClient(path: path).ask("snapshot")["schema"] == .int(1))
    }

    @Test func aPathALiveInspectorServesIsRefusedAndKeepsServing() throws {
        let folder = TemporaryFolder()
        let path = folder.file("i.sock")
        let first = try LoopInspector.start(socketPath: path, registry: .init(), limits: .keepingSilentClients)
        defer { first.stop() }

        #expect(throws: LoopInspectorError.inUse(path: path)) {
            try LoopInspector.start(socketPath: path, registry: .init(), limits: .keepingSilentClients)
        }
        #expect(try InspectorTestClient(path: path).ask("snapshot")["schema"] == .int(1))
    }

    @Test func aPathThatIsNotASocketIsRefusedAndLeftAlone() throws {
        let folder = TemporaryFolder()
        let path = folder.file("notes.txt")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8)))

        #expect(throws: LoopInspectorError.notASocket(path: path)) {
            try LoopInspector.start(socketPath: path)
        }
        #expect(FileManager.default.contents(atPath: path) == Data("keep me".utf8))
    }

    @Test func aPathTooLongForASocketIsRefusedByLength() {
        let path = "/tmp/" + String(repeating: "x", count: 200)
        #expect(throws: LoopInspectorError.pathTooLong(path: path, limit: 107)) {
            try LoopInspector.start(socketPath: path)
        }
    }

    @Test func aFolderThatDoesNotExistIsASystemErrorNamingTheCallAndErrno() {
        let path = "/tmp/mainline-no-such-folder-\(getpid())/i.sock"
        #expect(throws: LoopInspectorError.system(operation: "bind", path: path, errno: ENOENT)) {
            try LoopInspector.start(socketPath: path)
        }
        let error = LoopInspectorError.system(operation: "bind", path: path, errno: ENOENT)
        #expect(
            error.description
                == "cannot serve the inspector on \(path): bind failed: No such file or directory (errno \(ENOENT))"
        )
    }
}
