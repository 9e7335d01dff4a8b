import Foundation
import Testing

/// The documentation's Swift snippets must compile. A snippet is tagged `<!-- snippet: path -->` with the file it is
/// taken from — an example program or a test, both built by `swift test` — and must appear there line for line
/// (indentation aside), so a snippet can't drift from code that compiles.
///
/// Checked: the README (where every ```swift block must be tagged), the examples' README and every DocC article
/// (where the tagged blocks are checked; untagged ones are sketches, such as a "wrong way").
@Suite("README snippets")
struct ReadmeSnippetTests {
    struct Snippet: CustomStringConvertible {
        var document: String
        var source: String
        var lines: [String]
        var description: String { "snippet in \(document) from \(source) starting \"\(lines.first ?? "")\"" }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func normalized(_ text: Substring) -> String { text.trimmingCharacters(in: .whitespaces) }

    /// The documents whose tagged snippets are checked, relative to the package root.
    static func documents() throws -> [String] {
        let sources = packageRoot.appendingPathComponent("Sources")
        var articles: [String] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let catalog = "Sources/\(module)/Documentation.docc"
            let files =
                (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent(catalog).path))
                ?? []
            articles += files.filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
        }
        return ["README.md", "Examples/README.md"] + articles
    }

    /// Every ```swift block of `document` with the tag line right before it, and how many were untagged.
    static func snippets(in document: String) throws -> (tagged: [Snippet], untagged: Int) {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
        var tagged: [Snippet] = []
        var untagged = 0
        var lastTag: String?
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if var lines = current {
                if line.hasPrefix("```") {
                    if let lastTag {
                        tagged.append(Snippet(document: document, source: lastTag, lines: lines))
                    } else {
                        untagged += 1
                    }
                    current = nil
                    lastTag = nil
                } else {
                    lines.append(normalized(line))
                    current = lines
                }
            } else if line.hasPrefix("<!-- snippet: "), line.hasSuffix(" -->") {
                lastTag = String(line.dropFirst("<!-- snippet: ".count).dropLast(" -->".count))
            } else if line == "```swift" {
                current = []
            } else if !line.isEmpty {
                lastTag = nil
            }
        }
        return (tagged, untagged)
    }

    static func allTagged() throws -> [Snippet] {
        try documents().flatMap { try snippets(in: $0).tagged }
    }

    @Test func everySwiftSnippetInTheReadmeNamesTheFileItComesFrom() throws {
        let (tagged, untagged) = try Self.snippets(in: "README.md")
        #expect(untagged == 0, "tag every ```swift block with <!-- snippet: path --> on the line before it")
        #expect(tagged.count >= 3)
        #expect(try Self.allTagged().count >= 20, "the snippets moved into the DocC articles are checked too")
    }

    @Test(arguments: try allTagged())
    func theSnippetAppearsLineForLineInItsSourceFile(_ snippet: Snippet) throws {
        let file = try String(contentsOf: Self.packageRoot.appendingPathComponent(snippet.source), encoding: .utf8)
        let lines = file.split(separator: "\n", omittingEmptySubsequences: false).map(Self.normalized)
        let found = lines.indices.contains { start in
            start + snippet.lines.count <= lines.count
                && Array(lines[start..<(start + snippet.lines.count)]) == snippet.lines
        }
        #expect(found, "\(snippet.document) shows code that is not in \(snippet.source): update one or the other")
    }
}
