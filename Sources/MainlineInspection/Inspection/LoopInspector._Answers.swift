import MainlineLoop
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension LoopInspector {
    /// What the inspector answers: the documents of schema 1 (the article "Inspecting a running loop" describes them),
    /// built from the registry's describers, and the error lines.
    ///
    /// All operations on `_Answers` are thread-safe; the inspector's thread calls them.
    struct _Answers: Sendable {
        /// The version of the documents' schema; it changes only when a field changes meaning or goes away.
        static let schema = 1

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
                let value: _InspectionValue
                do {
                    value = try _InspectionValue(parsing: bytes, maximumDepth: 8)
                } catch {
                    return Self.error(
                        "the request is not JSON (\(error)); send a line such as {\"request\":\"snapshot\"}"
                    )
                }
                guard let name = value["request"]?.stringValue else {
                    return Self.error(
                        "a request is an object with a \"request\" string, such as {\"request\":\"snapshot\"}"
                    )
                }
                switch name {
                case "snapshot": return snapshot().json()
                case "recorder": return recorder().json()
                default:
                    return Self.error(
                        "unknown request \(_InspectionValue.string(String(name.prefix(64))).json()); the requests are "
                            + "\"snapshot\" and \"recorder\""
                    )
                }
            }
        }

        /// `{"schema":1,"pid":…,"process":…,"uptimeSeconds":…,"loops":[…],"mailboxes":[…],"viewModels":[…],
        /// "coordinators":[…]}`.
        func snapshot() -> _InspectionValue {
            .object(
                header + [
                    ("uptimeSeconds", .double(((Self.bootClock() - startedAt) * 1_000).rounded() / 1_000)),
                    ("loops", .array(registry.describe(.loops))),
                ] + Self.sections.map { ($0, .array(registry.describe(.init($0)))) }
            )
        }

        /// The lists of a snapshot after `loops`, in order: the categories the upper layers register into
        /// (MainlineEvents' mailboxes, MainlineViewModels' view models, MainlineCoordinators' coordinators), named as
        /// the snapshot's schema promises, present (perhaps empty) whether or not their layer is linked.
        static let sections = ["mailboxes", "viewModels", "coordinators"]

        /// `{"schema":1,"pid":…,"process":…,"loops":[…]}`, each loop with its flight recorder.
        func recorder() -> _InspectionValue {
            .object(header + [("loops", .array(registry.describe(.loops, detail: .recorder)))])
        }

        private var header: [(String, _InspectionValue)] {
            [("schema", .int(Self.schema)), ("pid", .int(pid)), ("process", .string(process))]
        }

        /// `{"schema":1,"error":"<message>"}`.
        static func error(_ message: String) -> String {
            _InspectionValue.object([("schema", .int(schema)), ("error", .string(message))]).json()
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
