import Foundation
import Testing

/// Without the `Postgres` trait `MainlinePostgres` is empty but still importable, so each public type has an
/// unavailable stand-in (`MissingPostgresTrait.swift`) whose message says to enable the trait. Building a package
/// without the trait is too slow for the suite (issue 25's report shows one, with the compiler's message); this reads
/// the sources instead, with or without the trait, so that a public type added later cannot lack its stand-in.
@Suite("MainlinePostgres without the Postgres trait")
struct MissingPostgresTraitTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/MainlinePostgres")
    static let standInFile = "MissingPostgresTrait.swift"

    /// The names declared `public` at the top level (no indentation) of `text`.
    static func publicTypeNames(in text: String) throws -> Set<String> {
        let declaration = try NSRegularExpression(
            pattern: #"^public (?:final class|class|struct|enum|actor|protocol|typealias) ([A-Za-z_][A-Za-z0-9_]*)"#,
            options: .anchorsMatchLines
        )
        return Set(
            declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
                String(text[Range($0.range(at: 1), in: text)!])
            }
        )
    }

    static func read(_ file: String) throws -> String {
        try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
    }

    @Test func everyPublicTypeHasAStandInAndNoStandInIsLeftOver() throws {
        var types = Set<String>()
        // Every folder of the target (Publisher, Subscriber, Groups, Schema), not only the top.
        let files = FileManager.default.enumerator(atPath: Self.sources.path)?.compactMap { $0 as? String } ?? []
        #expect(files.contains { $0.hasPrefix("Groups/") }, "the target's folders are read")
        for file in files where file.hasSuffix(".swift") && file != Self.standInFile {
            let text = try Self.read(file)
            #expect(text.hasPrefix("#if Postgres\n"), "\(file) must be empty without the trait, as the manifest says")
            types.formUnion(try Self.publicTypeNames(in: text))
        }
        #expect(types.contains("StreamPublisher") && types.contains("StreamSubscriber"))
        let standIns = try Self.publicTypeNames(in: try Self.read(Self.standInFile))
        #expect(
            types.subtracting(standIns).isEmpty,
            "give \(types.subtracting(standIns).sorted()) an unavailable stand-in in \(Self.standInFile)"
        )
        #expect(standIns.subtracting(types).isEmpty, "\(standIns.subtracting(types).sorted()) no longer exist")
    }

    @Test func everyStandInIsUnavailableWithAMessageThatNamesTheTraitAndTheLineToWrite() throws {
        let text = try Self.read(Self.standInFile)
        #expect(text.hasPrefix("#if !Postgres\n"), "the stand-ins exist only without the trait")
        let declarations = text.components(separatedBy: "\npublic enum ").dropFirst()
        let attributes = text.components(separatedBy: "@available(").dropFirst()
        #expect(attributes.count == declarations.count, "one unavailable attribute per stand-in")
        for attribute in attributes {
            #expect(attribute.contains("unavailable,"))
            // Both lines, each with the trait: `.package(url: …, traits: ["Postgres"])` and `.package(path: …)`.
            #expect(attribute.components(separatedBy: #"traits: [\"Postgres\"])"#).count == 3)
            #expect(attribute.contains(#".package(url: "#) && attribute.contains(#".package(path: "#))
        }
    }
}
