/// A stall's backtrace folded for the text views: the frames of the process's own code first, then the frame the
/// thread was interrupted in, and how many frames were left out. `--once --json` and `--dump` keep every frame.
///
/// `BacktraceFolding` is a namespace of pure functions; all of them are thread-safe.
///
/// A stall's stack holds a few frames worth reading among dozens that every stall shares: the C library and the Swift
/// runtime, the loop's own machinery (Mainline's modules, libuv), compiler glue (thunks), and the start of the
/// process. A frame of the process's own code is one with a name that is none of those: the user's functions and
/// closures, and their dependencies' (a Swift module that is neither Swift's nor one of Mainline's libraries).
enum BacktraceFolding {
    /// The most frames of the process's own code shown.
    static let ownFramesShown = 8

    /// The lines to show for `frames` (each `#<index> 0x<address> <symbol> + <offset> in <image>`, innermost first),
    /// each with its index, so that a reader can find it in the full backtrace.
    ///
    /// The frames of the process's own code, innermost first, at most ``ownFramesShown``; then frame `#0`, where the
    /// thread was (asleep, waiting on a lock, in a system call), when it is not among them; then a line counting the
    /// frames left out. Without any frame of the process's own code, the first ``ownFramesShown`` frames.
    static func lines(_ frames: [String]) -> [String] {
        var shown = frames.indices.filter { isOwnCode(frames[$0]) }.prefix(ownFramesShown).map { $0 }
        if shown.isEmpty { shown = Array(frames.indices.prefix(ownFramesShown)) }
        var lines = shown.map { frames[$0] }
        if let innermost = frames.indices.first, !shown.contains(innermost) {
            lines.append(frames[innermost] + "   (where the thread was)")
            shown.append(innermost)
        }
        let left = frames.count - shown.count
        if left > 0 {
            lines.append("… \(left) more frames (runtime, loop, glue): --once --json or --dump has them all")
        }
        return lines
    }

    /// Whether `frame` is of the process's own code: named, in the executable rather than a shared library, and in
    /// none of the modules every stall's stack shares.
    static func isOwnCode(_ frame: String) -> Bool {
        guard let (symbol, image) = parts(of: frame), let symbol else { return false }
        if let image, image.hasPrefix("ld-") || (image.hasPrefix("lib") && image.contains(".so")) { return false }
        guard let owner = owner(of: symbol) else { return false }
        if let dot = owner.firstIndex(of: ".") { return !sharedModules.contains(String(owner[..<dot])) }
        // A C function of the executable: libuv's and the package's shims are the loop's; `_start` starts the process.
        let name = owner.prefix { $0 != "(" && $0 != " " }
        return !(name.hasPrefix("uv_") || name.hasPrefix("mainline_") || name.hasPrefix("_start") || name.isEmpty)
    }

    /// The Swift modules every stack may pass through, linked into the executable or not: Swift's own, and the
    /// package's libraries (the loop's machinery, and the view models' and coordinators' around the process's code).
    static let sharedModules: Set<String> = [
        "Swift", "_Concurrency", "Dispatch", "Foundation", "FoundationEssentials", "FoundationInternationalization",
        "Synchronization", "Atomics", "Glibc", "CLibUV", "CMainlineShims", "Mainline", "MainlineLoop",
        "MainlineEvents", "MainlineObservables", "MainlineViewModels", "MainlineCoordinators", "MainlineBindings",
        "MainlineTesting", "MainlineServiceLifecycle", "MainlinePostgres", "_MainlineTestSupport",
    ]

    /// The symbol and image of `#12 0x00005555 Module.f() -> () + 42 in binary`; either may be missing.
    static func parts(of frame: String) -> (symbol: String?, image: String?)? {
        // `#12 0x…` first: the symbol starts after the address.
        let words = frame.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard words.count >= 2, words[0].hasPrefix("#"), words[1].hasPrefix("0x") else { return nil }
        guard words.count == 3 else { return (nil, nil) }
        var rest = Substring(words[2])
        var image: String?
        if let range = rest.range(of: " in ", options: .backwards), !rest[range.upperBound...].contains(" ") {
            image = String(rest[range.upperBound...])
            rest = rest[..<range.lowerBound]
        } else if rest.hasPrefix("in ") {
            return (nil, String(rest.dropFirst(3)))
        }
        if let plus = rest.range(of: " + ", options: .backwards), rest[plus.upperBound...].allSatisfy(\.isNumber) {
            rest = rest[..<plus.lowerBound]
        }
        return (rest.isEmpty ? nil : String(rest), image)
    }

    /// What a symbol belongs to: past the compiler's prefixes (`static`, `specialized`, `partial apply for`,
    /// `protocol witness for`, …), for a closure what it was written in, for an extension its module; `nil` for
    /// compiler glue (thunks).
    static func owner(of symbol: String) -> Substring? {
        var rest = Substring(symbol)
        while true {
            if let prefix = compilerPrefixes.first(where: rest.hasPrefix) {
                rest = rest.dropFirst(prefix.count)
            } else if rest.hasPrefix("thunk for ") || rest.hasPrefix("reabstraction thunk") {
                return nil
            } else if rest.hasPrefix("closure #") || rest.hasPrefix("implicit closure #") {
                guard let inside = outermostIn(rest) else { return nil }
                rest = inside
            } else if rest.hasPrefix("(extension in "), let end = rest.range(of: "):") {
                // `(extension in Module):Type.f()`: the module that wrote the extension.
                return rest[rest.index(rest.startIndex, offsetBy: 14)..<end.lowerBound] + "." + rest[end.upperBound...]
            } else {
                return rest
            }
        }
    }

    /// What the compiler writes before a name that belongs to the function named after it.
    static let compilerPrefixes = [
        "static ", "@objc ", "@nonobjc ", "specialized ", "partial apply for ", "partial apply forwarder for ",
        "merged ", "outlined ",
        "protocol witness for ", "dispatch thunk of ", "variable initialization expression of ",
        "lazy protocol witness table accessor for ", "async function pointer to ",
    ]

    /// What follows the first ` in ` outside brackets (a closure's signature may hold `in` within them).
    private static func outermostIn(_ text: Substring) -> Substring? {
        var depth = 0
        var index = text.startIndex
        var previous: Character = " "
        while index < text.endIndex {
            let character = text[index]
            if "([<{".contains(character) { depth += 1 }
            // `->` closes nothing.
            if ")]}".contains(character) || (character == ">" && previous != "-") { depth = max(0, depth - 1) }
            previous = character
            if depth == 0, text[index...].hasPrefix(" in ") { return text[text.index(index, offsetBy: 4)...] }
            index = text.index(after: index)
        }
        return nil
    }
}
