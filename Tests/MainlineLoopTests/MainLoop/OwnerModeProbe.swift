import Foundation
import Testing

/// Launches `mainline-owner-probe` (built beside the test binary) and collects its report.
struct OwnerModeProbe {
    struct Result {
        var exitStatus: Int32
        var report: [String: String]
        var standardError: String

        subscript(key: String) -> String? { report[key] }
    }

    static func run(_ scenario: String) async throws -> Result {
        // The probe is built into the same directory as the test binary.
        let testBinary = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        )
        let probe = testBinary.deletingLastPathComponent().appendingPathComponent("mainline-owner-probe")
        let process = Process()
        process.executableURL = probe
        process.arguments = [scenario]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a trap should exit quickly, without a backtrace
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes to the end before waiting, so a chatty child can never block on a full pipe.
        async let out = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        async let err = Task.detached { errors.fileHandleForReading.readDataToEndOfFile() }.value
        let (stdout, stderr) = await (out, err)
        process.waitUntilExit()
        var report: [String: String] = [:]
        for line in String(decoding: stdout, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            report[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return Result(
            exitStatus: process.terminationStatus,
            report: report,
            standardError: String(decoding: stderr, as: UTF8.self)
        )
    }
}
