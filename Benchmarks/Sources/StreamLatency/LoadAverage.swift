import Foundation

/// The machine's 1-minute load average (`/proc/loadavg`), or `nil` where there is none.
func loadAverage() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
    return text.split(separator: " ").first.flatMap { Double($0) }
}
