import MainlineInspectorSchema
import MainlineLoop
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension LoopInspector {
    /// What the inspector answers: the documents of the inspector's schema (`MainlineInspectorSchema`; the article
    /// "Inspecting a running loop" describes them), built from the registry's describers and encoded by
    /// `InspectorJSON`, and the error lines.
    ///
    /// All operations on `_Answers` are thread-safe; the inspector's thread calls them.
    struct _Answers: Sendable {
        let registry: _InspectionRegistry
        /// The process's id and name (its `argv[0]` without the folders).
        let pid: Int
        let process: String
        /// When the process started, in seconds of `CLOCK_BOOTTIME`; when the inspector started if the kernel does
        /// not say.
        let startedAt: Double
        /// The longest request line, for the answer to a longer one.
        let requestLineBytes: Int

        init(registry: _InspectionRegistry, requestLineBytes: Int) {
            self.registry = registry
            self.requestLineBytes = requestLineBytes
            pid = Int(getpid())
            let command = CommandLine.arguments.first ?? ""
            process = command.split(separator: "/").last.map(String.init) ?? command
            startedAt = Self.processStart() ?? Self.bootClock()
        }

        /// The answer line to one request line.
        func answer(_ request: _Connection._Request) -> String {
            switch request {
            case .tooLong:
                return Self.error(
                    "the request line is longer than \(requestLineBytes) bytes; it was skipped"
                )
            case .line(let bytes):
                guard String(validating: bytes, as: UTF8.self) != nil else {
                    return Self.error("the request is not UTF-8 text; send a line such as {\"request\":\"snapshot\"}")
                }
                let request: InspectorRequest
                do {
                    request = try InspectorJSON.decode(InspectorRequest.self, from: bytes)
                } catch DecodingError.dataCorrupted(let context) {
                    return Self.error(
                        "the request is not JSON (\(InspectorJSON.reason(DecodingError.dataCorrupted(context)))); "
                            + "send a line such as {\"request\":\"snapshot\"}"
                    )
                } catch {
                    return Self.noRequestString
                }
                guard let name = request.request else { return Self.noRequestString }
                switch name {
                case "snapshot": return Self.line(snapshot())
                case "recorder": return Self.line(recorder())
                default:
                    let shown = (try? InspectorJSON.line(String(name.prefix(64)))) ?? "?"
                    return Self.error("unknown request \(shown); the requests are \"snapshot\" and \"recorder\"")
                }
            }
        }

        /// The answer to a line that is JSON but not an object with a `request` string.
        private static var noRequestString: String {
            error("a request is an object with a \"request\" string, such as {\"request\":\"snapshot\"}")
        }

        /// The snapshot document: the process, and every category's live entries.
        func snapshot() -> InspectorSnapshot {
            InspectorSnapshot(
                pid: pid,
                process: process,
                uptimeSeconds: ((Self.bootClock() - startedAt) * 1_000).rounded() / 1_000,
                loops: registry.describe(.loops, as: LoopSummary.self),
                // The categories the upper layers register into (MainlineEvents' mailboxes, MainlineViewModels' view
                // models, MainlineCoordinators' coordinators, MainlinePostgres' streams), named as the schema promises,
                // present (perhaps empty) whether or not their layer is linked.
                mailboxes: registry.describe(.init("mailboxes"), as: MailboxSummary.self),
                viewModels: registry.describe(.init("viewModels"), as: ViewModelSummary.self),
                coordinators: registry.describe(.init("coordinators"), as: CoordinatorSummary.self),
                streams: registry.describe(.init("streams"), as: StreamSummary.self)
            )
        }

        /// The recorder document: each loop with its flight recorder.
        func recorder() -> InspectorRecorderDocument {
            InspectorRecorderDocument(
                pid: pid,
                process: process,
                loops: registry.describe(.loops, as: LoopRecording.self, detail: .recorder)
            )
        }

        /// An error line saying `message`.
        static func error(_ message: String) -> String {
            line(InspectorErrorLine(message))
        }

        /// `document` as one line; an error line naming what could not be encoded (a number JSON cannot hold) if it
        /// cannot be.
        private static func line(_ document: some Encodable) -> String {
            do {
                return try InspectorJSON.line(document)
            } catch {
                // The error line itself holds only strings and an integer: it always encodes.
                return (try? InspectorJSON.line(InspectorErrorLine("the answer could not be encoded: \(error)")))
                    ?? ""
            }
        }

        /// Seconds of `CLOCK_BOOTTIME`, the clock `/proc/self/stat` counts the process's start in.
        private static func bootClock() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_BOOTTIME, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }

        /// When the process started, from field 22 of `/proc/self/stat` (clock ticks after boot).
        private static func processStart() -> Double? {
            let descriptor = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            var bytes = [UInt8](repeating: 0, count: 1_024)
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            let text = String(decoding: bytes[0..<count], as: UTF8.self)
            // The command (field 2) is in parentheses and may hold spaces; fields 3… follow the last ')'.
            guard let commandEnd = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: commandEnd)...].split(separator: " ")
            let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
            guard fields.count > 19, let ticks = Double(fields[19]), ticksPerSecond > 0 else { return nil }
            return ticks / Double(ticksPerSecond)
        }
    }
}
