import Foundation
import Testing

/// The article "How the loop works" traces a mailbox value's path file by file and states how many files it runs
/// through: these tests read the article and hold it to the code, so that a file moved, renamed or dropped from the
/// path, or a call renamed, fails here instead of leaving the article wrong.
@Suite("The article How the loop works")
struct HowTheLoopWorksArticleTests {
    /// One numbered step of the trace: `12. **`Module/Folder/File.swift`** `call`, `other` — what happens`.
    struct Step {
        var number: Int
        var path: String
        var calls: [String]
    }

    /// The package's root, from this file's path (`Tests/MainlineLoopTests/…`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The section of the article that traces the mailbox's path, up to the next section.
    static func traceSection() throws -> String {
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/MainlineLoop/Documentation.docc/HowTheLoopWorks.md"),
            encoding: .utf8
        )
        let start = try #require(article.range(of: "## A coalesced trigger's path"), "the trace's section is gone")
        let rest = article[start.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// The numbered steps of `section`, each with its file and the calls named before its dash.
    static func steps(in section: String) -> [Step] {
        section.split(separator: "\n").compactMap { line -> Step? in
            guard let dot = line.firstIndex(of: "."), let number = Int(line[..<dot]),
                line[line.index(after: dot)...].hasPrefix(" **`")
            else { return nil }
            let afterNumber = line[line.index(dot, offsetBy: 5)...]
            guard let pathEnd = afterNumber.range(of: "`**") else { return nil }
            let path = String(afterNumber[..<pathEnd.lowerBound])
            let named = afterNumber[pathEnd.upperBound...].split(separator: "—", maxSplits: 1).first ?? ""
            let calls = named.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map {
                String($0.element)
            }
            return Step(number: number, path: path, calls: calls)
        }
    }

    /// The file count the article states: `This path runs through **N files**`.
    static func statedCount(in section: String) throws -> Int {
        let marker = try #require(section.range(of: "This path runs through **"), "the article states no file count")
        let digits = section[marker.upperBound...].prefix { $0.isNumber }
        return try #require(Int(digits), "the stated count is not a number")
    }

    @Test func theFileCountTheArticleStatesIsTheNumberOfFilesItLists() throws {
        let section = try Self.traceSection()
        let steps = Self.steps(in: section)
        try #require(!steps.isEmpty, "no numbered steps found")
        #expect(steps.map(\.number) == Array(1...steps.count), "the steps are numbered 1, 2, 3, … without a gap")
        let files = Set(steps.map(\.path))
        #expect(try Self.statedCount(in: section) == files.count, "the article lists \(files.sorted())")
    }

    @Test func everyFileTheArticleListsExistsAndHasTheCallsItNames() throws {
        let steps = Self.steps(in: try Self.traceSection())
        try #require(!steps.isEmpty, "no numbered steps found")
        for step in steps {
            let url = Self.root.appendingPathComponent("Sources").appendingPathComponent(step.path)
            guard let source = try? String(contentsOf: url, encoding: .utf8) else {
                Issue.record("step \(step.number): Sources/\(step.path) does not exist")
                continue
            }
            #expect(!step.calls.isEmpty, "step \(step.number) names no call")
            for call in step.calls {
                let present = ["func \(call)", "let \(call):", "var \(call):", "\(call)(", "\(call) {", "\(call)<"]
                    .contains { source.contains($0) }
                #expect(present, "step \(step.number): Sources/\(step.path) has no `\(call)`")
            }
        }
    }
}
