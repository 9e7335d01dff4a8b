import Foundation
import Testing
import _MainlineTestSupport

/// Launches `mainline-owner-probe` (built beside the test binary) and collects its report.
struct OwnerModeProbe {
    struct Result {
        var exitStatus: Int32
        var report: [String: String]
        var standardError: String

        subscript(key: String) -> String? { report[key] }
    }

    static func run(_ scenario: String) async throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a trap should exit quickly, without a backtrace
        let child = try await ChildProcess.run(
            ChildProcess.builtProduct("mainline-owner-probe"),
            [scenario],
            environment: environment
        )
        var report: [String: String] = [:]
        for line in child.standardOutput.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            report[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return Result(exitStatus: child.status, report: report, standardError: child.standardError)
    }
}
