// TableRenderer — draws a data source as lines of the terminal and keeps them up to date by replaying the change
// sets the source delivers, redrawing only the lines whose content or position changed.
//
// The renderer keeps a mirror of the rendered rows, one array per section. Each row remembers the screen line it was
// last drawn on. When a change set arrives (once per loop iteration, in settle) it is replayed on the mirror with
// `ChangeSet.replay(on:section:row:)`: deleted rows leave, moved rows travel with their remembered line, inserted and
// changed rows are formatted afresh with no line. Section titles get the same treatment from the section changes.
// Then the mirror is laid out again, and a line is written only where the row now at that position is not the one
// the terminal already shows there — fresh rows, rows shifted by an insert or a delete above them, moved rows — and
// the lines below the new end are erased. A progress tick is one changed row: one line, not the table. A delete and
// an insert at the same place (how a group records a changed row) leave the rows below where they were: one line.

import Mainline

/// Draws one data source at a time into rows of the terminal. Must be used on the main actor.
@MainActor
final class TableRenderer {
    /// What the footer reports.
    struct Counters {
        /// Deliveries drawn (and full draws when a source is shown).
        var redraws = 0
        /// Table lines written, in total.
        var linesDrawn = 0
        /// Table lines written by the last redraw.
        var lastRedraw = 0
        /// Change sets that did not fit the mirror and were answered with a full redraw (never expected).
        var resyncs = 0
    }

    /// One rendered row: its text and the screen line (from 0, in the table) where the terminal shows it, if any.
    private struct RenderedRow {
        var text: String
        var line: Int? = nil
    }

    private(set) var counters = Counters()
    /// Where the escape sequences go: the terminal, or a test's screen.
    private let write: @MainActor (String) -> Void
    /// The screen row (from 1) of the table's first line.
    private let firstRow: Int
    /// What to write after the table's lines, in the same write (the dashboard's footer, with the new counters).
    private let trailer: @MainActor (Counters) -> String
    /// The mirror of the shown source's rows; protected by the main actor.
    private var mirror: [[RenderedRow]] = []
    /// For each section, the screen line of its title if the terminal shows it; protected by the main actor.
    private var titleLines: [Int?] = []
    /// How many table lines the terminal shows now; protected by the main actor.
    private var lineCount = 0
    private var observation: Disposable?

    init(
        firstRow: Int,
        write: @escaping @MainActor (String) -> Void,
        trailer: @escaping @MainActor (Counters) -> String = { _ in "" }
    ) {
        self.firstRow = firstRow
        self.write = write
        self.trailer = trailer
    }

    /// Shows `source` from now on: draws it whole, then follows its change sets.
    ///
    /// - Parameters:
    ///   - source: The root of the tree to show.
    ///   - line: Formats an item as a line.
    func show<Item>(_ source: DataSource<Item>, line: @escaping @MainActor (Item) -> String) {
        observation?.dispose()
        func section(of source: DataSource<Item>, _ index: Int) -> [RenderedRow] {
            source.rows(in: index).map { RenderedRow(text: line($0)) }
        }
        mirror = (0..<source.numberOfSections).map { section(of: source, $0) }
        titleLines = Array(repeating: nil, count: mirror.count)
        redraw(title: source.title(forSection:))
        // `source` weakly: a source this renderer no longer shows must not be kept alive by its own observer.
        observation = source.observeChanges { [weak self, weak source] changes in
            guard let self, let source else { return }
            do {
                try changes.replay(
                    on: &mirror,
                    section: { section(of: source, $0) },
                    row: { RenderedRow(text: line(source.item(at: $0))) }
                )
                titleLines = Self.replaySections(changes, on: titleLines)
            } catch {
                // The mirror was out of step with the source: start again from what the source shows now.
                counters.resyncs += 1
                mirror = (0..<source.numberOfSections).map { section(of: source, $0) }
                titleLines = Array(repeating: nil, count: mirror.count)
            }
            redraw(title: source.title(forSection:))
        }
    }

    /// Follows the section changes of `changes` on the titles' screen lines: an inserted or changed section's title
    /// is not on screen yet; the others keep theirs.
    private static func replaySections(_ changes: ChangeSet, on titles: [Int?]) -> [Int?] {
        var titles = titles
        for change in changes.history {
            switch change {
            case .sectionInserted(let index): titles.insert(nil, at: index)
            case .sectionDeleted(let index): titles.remove(at: index)
            case .sectionChanged(let index): titles[index] = nil
            case .rowInserted, .rowDeleted, .rowChanged, .rowMoved: continue
            }
        }
        return titles
    }

    /// Lays the mirror out as lines and writes those the terminal does not show at that position yet.
    private func redraw(title: (Int) -> String?) {
        var lines: [(text: String, shownAt: Int?)] = []
        for (section, rows) in mirror.enumerated() {
            if let title = title(section) { lines.append(("== \(title) ==", titleLines[section])) }
            lines += rows.map { ($0.text, $0.line) }
        }
        var output = ""
        var drawn = 0
        for (index, line) in lines.enumerated() where line.shownAt != index {
            output += Terminal.line(firstRow + index, line.text)
            drawn += 1
        }
        for index in lines.count..<max(lines.count, lineCount) {
            output += Terminal.line(firstRow + index, "")
            drawn += 1
        }
        // Where everything is now.
        var index = 0
        for section in mirror.indices {
            if title(section) != nil {
                titleLines[section] = index
                index += 1
            }
            for row in mirror[section].indices {
                mirror[section][row].line = index
                index += 1
            }
        }
        lineCount = lines.count
        counters.redraws += 1
        counters.linesDrawn += drawn
        counters.lastRedraw = drawn
        write(output + trailer(counters))
    }
}
