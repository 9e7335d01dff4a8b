import Testing
import _MainlineTestSupport

/// The checks every example's command line gets: the conventions of swift-argument-parser, which all of them use.
///
/// `--help` prints the usage (naming every flag), an overview and a discussion, and exits 0; a bad flag or value
/// exits with `ExitCode.validationFailure` (64, `EX_USAGE`) and a message on standard error that names the flag.
enum CommandLineChecks {
    /// The status of a command line the parser rejects: `ExitCode.validationFailure`, `EX_USAGE` in `sysexits.h`.
    static let usageErrorStatus: Int32 = 64

    /// Runs `product --help` and checks that it exits 0 and prints a usage naming each of `flags`, and `mentions`
    /// (the discussion's words on what the program shows and how to quit).
    static func expectHelp(
        _ product: String,
        naming flags: [String],
        mentioning mentions: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let result = try await ChildProcess.run(ChildProcess.builtProduct(product), ["--help"])
        let help = result.standardOutput
        #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(help.contains("USAGE: \(product)"), "\(help)", sourceLocation: sourceLocation)
        #expect(help.contains("OVERVIEW: "), "\(help)", sourceLocation: sourceLocation)
        let usage = help.split(separator: "OPTIONS:").first.map(String.init) ?? ""
        let options = help.split(separator: "OPTIONS:").dropFirst().first.map(String.init) ?? ""
        for flag in flags {
            #expect(usage.contains(flag), "the usage line names \(flag): \(help)", sourceLocation: sourceLocation)
            #expect(options.contains(flag), "OPTIONS explains \(flag): \(help)", sourceLocation: sourceLocation)
        }
        // The help is wrapped to the terminal's width: words are compared with every line break made a space.
        let text = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for words in mentions {
            #expect(text.contains(words), "the help mentions \"\(words)\": \(help)", sourceLocation: sourceLocation)
        }
    }

    /// Runs `product` with `arguments` and checks that it exits 64, prints nothing on standard output, and says on
    /// standard error, on the line that starts `Error: `, what `message` says (the flag's name, at least). Returns
    /// what it printed on standard error.
    @discardableResult
    static func expectUsageError(
        _ product: String,
        _ arguments: [String],
        saying message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let result = try await ChildProcess.run(ChildProcess.builtProduct(product), arguments)
        #expect(
            result.status == usageErrorStatus,
            "\(arguments): \(result.standardError)",
            sourceLocation: sourceLocation
        )
        // The usage printed after the error names every flag: the flag must be named on the error's own line.
        let error = result.standardError.split(separator: "\n").first { $0.hasPrefix("Error: ") } ?? ""
        #expect(error.contains(message), "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.isEmpty, "nothing ran: \(result.standardOutput)", sourceLocation: sourceLocation)
        return result.standardError
    }
}
