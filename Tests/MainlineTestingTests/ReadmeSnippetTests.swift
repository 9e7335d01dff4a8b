import Foundation
import Testing

/// The README's Swift snippets must compile. Each one is tagged `<!-- snippet: path -->` with the file it is taken
/// from — an example program or a test, both built by `swift test` — and must appear there line for line
/// (indentation aside), so a snippet can't drift from code that compiles.
@Suite("README snippets")
struct ReadmeSnippetTests {
    struct Snippet: CustomStringConvertible {
        var source: String
        var lines: [String]
        var description: String { "snippet from \(source) starting \"\(lines.first ?? "")\"" }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func normalized(_ text: Substring) -> String { text.trimmingCharacters(in: .whitespaces) }

    /// Every ```swift block of the README with the tag line right before it; untagged Swift blocks are an error.
    static func snippets() throws -> (tagged: [Snippet], untagged: Int) {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var tagged: [Snippet] = []
        var untagged = 0
        var lastTag: String?
        var current: [String]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if var lines = current {
                if line.hasPrefix("```") {
                    if let lastTag { tagged.append(Snippet(source: lastTag, lines: lines)) } else { untagged += 1 }
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

    @Test func everySwiftSnippetInTheReadmeNamesTheFileItComesFrom() throws {
        let (tagged, untagged) = try Self.snippets()
        #expect(untagged == 0, "tag every ```swift block with <!-- snippet: path --> on the line before it")
        #expect(tagged.count >= 4)
    }

    @Test(arguments: try snippets().tagged)
    func theSnippetAppearsLineForLineInItsSourceFile(_ snippet: Snippet) throws {
        let file = try String(contentsOf: Self.packageRoot.appendingPathComponent(snippet.source), encoding: .utf8)
        let lines = file.split(separator: "\n", omittingEmptySubsequences: false).map(Self.normalized)
        let found = lines.indices.contains { start in
            start + snippet.lines.count <= lines.count
                && Array(lines[start..<(start + snippet.lines.count)]) == snippet.lines
        }
        #expect(found, "the README shows code that is not in \(snippet.source): update one or the other")
    }
}
