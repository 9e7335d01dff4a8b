import Foundation
import MainlineInspection
import MainlineInspectorSchema
import MainlineLoop
import Testing
import _MainlineTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `mainline-console` run as a user runs it, against an inspector these tests serve: what each mode prints, writes
/// and exits with, and the one line it prints when it cannot attach, is refused or cannot read the answer.
@Suite("mainline-console modes")
struct ConsoleProcessTests {
    /// A loop, mailboxes, view models and coordinators registered with a registry of the test's own, and an inspector
    /// serving them.
    final class Served {
        final class Described: Sendable {}

        let folder: String
        let registry = _InspectionRegistry()
        let inspector: LoopInspector
        private let objects: [Described]
        var path: String { folder + "/i.sock" }

        init() throws {
            folder = makeTemporaryFolder(prefix: "mainline-console")
            inspector = try LoopInspector.start(
                socketPath: folder + "/i.sock",
                registry: registry,
                limits: .keepingSilentClients
            )
            let document = try InspectorJSON.decode(InspectorSnapshot.self, from: SnapshotFixtures.snapshot().utf8)
            let recorder = try InspectorJSON.decode(
                InspectorRecorderDocument.self,
                from: SnapshotFixtures.recorder.utf8
            )
            var objects: [Described] = []
            let registry = self.registry
            func register(_ values: [some Sendable], in category: _InspectionRegistry.Category) {
                for value in values {
                    let object = Described()
                    registry.register(object, in: category) { detail -> (any Sendable)? in
                        detail == .recorder ? recorder.loops.first : value
                    }
                    objects.append(object)
                }
            }
            register(document.loops, in: .loops)
            register(document.mailboxes, in: .mailboxes)
            register(document.viewModels, in: .viewModels)
            register(document.coordinators, in: .coordinators)
            self.objects = objects
        }

        deinit {
            inspector.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    static func console(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(try ChildProcess.builtProduct("mainline-console"), arguments)
    }

    @Test func onceJSONPrintsTheInspectorsDocumentOnOneLineAndExitsZero() async throws {
        let served = try Served()
        let result = try await Self.console(["--once", "--json", served.path])

        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput.hasSuffix("\n"))
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 1)
        var printed = try InspectorJSON.decode(InspectorSnapshot.self, from: result.standardOutput.utf8.dropLast())
        // What the inspector serves: the registered objects' descriptions, under this process's header.
        var expected = try InspectorJSON.decode(InspectorSnapshot.self, from: SnapshotFixtures.snapshot().utf8)
        expected.pid = Int(getpid())
        expected.process = CommandLine.arguments[0].split(separator: "/").last.map(String.init)
        #expect(printed.uptimeSeconds != nil)
        // The field that changes from one answer to the next.
        printed.uptimeSeconds = nil
        expected.uptimeSeconds = nil
        #expect(printed == expected)
    }

    @Test func onceWithoutJSONPrintsEveryViewAsText() async throws {
        let served = try Served()
        let result = try await Self.console(["--once", served.path])

        #expect(result.status == 0)
        let text = result.standardOutput
        for title in [
            "== overview ==", "== slowest jobs ==", "== mailboxes ==", "== view models ==", "== timers ==",
            "== stalls ==",
        ] {
            #expect(text.contains(title), "\(title) in:\n\(text)")
        }
        #expect(text.contains("loop main  MainLoop  running"))
        #expect(text.contains("    <= 0.016 ms |########################################| 160"))
        #expect(text.contains("  site:  App/Stall.swift:7"))
        #expect(text.contains("    #0 holdTheLoopOnPurpose(milliseconds:)"))
        #expect(!text.contains("\u{1B}"), "no terminal control sequences")
    }

    @Test func dumpWritesTheRecorderDocumentToTheFile() async throws {
        let served = try Served()
        let file = served.folder + "/recorder.json"
        let result = try await Self.console(["--dump", file, served.path])

        #expect(result.status == 0)
        #expect(
            result.standardOutput == "mainline-console: wrote the flight recorders of 1 loops (2 events) to \(file)\n"
        )
        let written = try #require(FileManager.default.contents(atPath: file))
        let document = try InspectorJSON.decode(InspectorRecorderDocument.self, from: written.dropLast())
        #expect(document.schema == 1)
        #expect(document.loops.first?.name == "main")
        #expect(document.loops.first?.events.count == 2)
        #expect(written.last == UInt8(ascii: "\n"))
    }

    @Test func aSocketThatIsNotThereIsOneLineAndExitStatus1() async throws {
        let result = try await Self.console(["--once", "--json", "/tmp/mainline-no-such-\(getpid()).sock"])
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError
                == "mainline-console: cannot attach to /tmp/mainline-no-such-\(getpid()).sock: No such file or directory\n"
        )
    }

    @Test func aFileThatNobodyServesIsOneLineAndExitStatus1() async throws {
        let served = try Served()
        let file = served.folder + "/plain"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let result = try await Self.console(["--once", file])
        #expect(result.status == 1)
        #expect(result.standardError == "mainline-console: cannot attach to \(file): Connection refused\n")
    }

    @Test func theLiveViewThatCannotAttachSaysSoWithoutTakingTheTerminal() async throws {
        let result = try await Self.console(["/tmp/mainline-no-such-\(getpid()).sock"])
        #expect(result.status == 1)
        #expect(result.standardOutput == "", "no alternate screen was entered")
        #expect(result.standardError.hasPrefix("mainline-console: cannot attach to "))
    }

    @Test(arguments: [
        ("hello\n", "bad answer from PATH: not a JSON object: hello"),
        ("{\"schema\":1,\"error\":\"unknown request\"}\n", "PATH answered with an error: unknown request"),
        ("{\"pid\":1}\n", "bad answer from PATH: the document has no \"schema\" number"),
        ("{\"schema\":1", "bad answer from PATH: the answer was cut off"),
        ("", "bad answer from PATH: the inspector closed the connection"),
    ])
    func anAnswerTheConsoleCannotReadIsOneLineAndExitStatus1(answer: String, message: String) async throws {
        let server = try OneAnswerServer(answer: answer)
        let result = try await Self.console(["--once", "--json", server.path])
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError == "mainline-console: " + message.replacingOccurrences(of: "PATH", with: server.path)
                + "\n"
        )
    }

    @Test(arguments: [
        (["--interval", "1", "a.sock"], "--interval needs a number of milliseconds from 50 to 60000, got '1'"),
        ([], "which socket? Give the path the process serves its inspector on"),
    ])
    func aBadCommandLineIsOneLineAndExitStatus64(arguments: [String], message: String) async throws {
        let result = try await Self.console(arguments)
        #expect(result.status == 64)
        #expect(result.standardError == "mainline-console: \(message) (see --help)\n")
    }

    @Test func helpShowsTheModesAndExitsZero() async throws {
        let result = try await Self.console(["--help"])
        #expect(result.status == 0)
        for mention in ["--once [--json] SOCKET", "--dump FILE SOCKET", "--interval MS", "f freezes", "q quits"] {
            #expect(result.standardOutput.contains(mention), "\(mention)")
        }
    }
}

/// A Unix domain socket server that answers one connection with `answer` (whatever it was asked) and closes it: an
/// inspector gone wrong, for the console's error lines.
final class OneAnswerServer: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` and `path` are constants; the thread only reads them.
    let path: String
    private let folder: String
    private let descriptor: Int32

    init(answer: String) throws {
        folder = makeTemporaryFolder(prefix: "mainline-console")
        path = folder + "/bad.sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(descriptor, 1) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot serve \(path)"])
        }
        let listening = descriptor
        Thread.detachNewThread {
            let client = accept(listening, nil, nil)
            guard client >= 0 else { return }
            var request = [UInt8](repeating: 0, count: 1_024)
            _ = recv(client, &request, request.count, 0)
            _ = answer.utf8CString.withUnsafeBufferPointer {
                send(client, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL))
            }
            close(client)
        }
    }

    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
        try? FileManager.default.removeItem(atPath: folder)
    }
}

extension _InspectionRegistry.Category {
    /// The categories the package's upper layers register into, named as they name them, for registries of the tests'
    /// own (this target does not link those layers).
    static let mailboxes = Self("mailboxes")
    static let viewModels = Self("viewModels")
    static let coordinators = Self("coordinators")
    /// Every list of the inspector's snapshot.
    static let allCases: [Self] = [.loops, .mailboxes, .viewModels, .coordinators]
}
