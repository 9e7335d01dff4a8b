import Foundation

/// How the console writes numbers and tables.
enum Formatting {
    /// `12.50` style: a fixed number of decimals, or `-` when there is no value.
    static func decimal(_ value: Double?, _ decimals: Int = 2) -> String {
        guard let value, value.isFinite else { return "-" }
        return String(format: "%.\(decimals)f", value)
    }

    /// A whole number, or `-`.
    static func integer(_ value: Int?) -> String {
        value.map(String.init) ?? "-"
    }

    /// `1.2 s`, `340 ms`: an age or a duration in milliseconds, readable.
    static func duration(milliseconds: Double?) -> String {
        guard let milliseconds, milliseconds.isFinite else { return "-" }
        if milliseconds >= 10_000 { return decimal(milliseconds / 1_000, 0) + " s" }
        if milliseconds >= 1_000 { return decimal(milliseconds / 1_000, 1) + " s" }
        return decimal(milliseconds, 1) + " ms"
    }

    /// `12 s`, `5 min 3 s`, `2 h 5 min`: how long a process has been up.
    static func uptime(seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "-" }
        let whole = Int(seconds)
        if whole < 60 { return "\(whole) s" }
        if whole < 3_600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3_600) h \((whole % 3_600) / 60) min"
    }

    /// Rows of cells as columns: each column as wide as its widest cell, two spaces apart; the last one unpadded.
    static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = [header] + rows
        let columns = all.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in
            all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    /// A bar of `width` cells, `value` of `maximum` filled with `#`.
    static func bar(_ value: Int, of maximum: Int, width: Int) -> String {
        let filled = maximum > 0 ? Int((Double(value) / Double(maximum) * Double(width)).rounded(.up)) : 0
        let cells = min(max(filled, value > 0 ? 1 : 0), width)
        return String(repeating: "#", count: cells) + String(repeating: " ", count: width - cells)
    }

    /// `site "label"`: where a job came from, as the console shows it.
    static func origin(site: String?, label: String?) -> String {
        switch (site, label) {
        case (let site?, let label?): "\(site) \"\(label)\""
        case (let site?, nil): site
        case (nil, let label?): "\"\(label)\""
        case (nil, nil): "(unknown site)"
        }
    }
}
