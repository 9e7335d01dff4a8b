import CMainlineBacktrace
import MainlineLoop
import MainlineLoopCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension LoopBacktrace {
    /// Turns captured addresses into frames: image, function and demangled name, with the signal handler's own frames
    /// removed. Caches each binary's symbol table.
    ///
    /// All operations on `_Symbolicator` are thread-safe (one lock; symbolication is rare and short).
    ///
    /// The toolchain's `Runtime` module (SE-0419) symbolicates only backtraces it captured itself, of the calling thread
    /// (it has no public way to build a `Backtrace` from addresses), so this does the work: the dynamic linker says
    /// which image holds an address and its load bias (`dladdr1`), the image's ELF symbol table names the function
    /// (`dladdr` alone sees exported symbols only, which an executable has few of), and `swift_demangle` makes Swift
    /// names readable.
    final class _Symbolicator: @unchecked Sendable {
        // @unchecked Sendable: `images`, `memory` and `uses` are read and written only inside `lock`.

        /// The process's symbolicator.
        static let shared = _Symbolicator(memoryBudget: 64 << 20)

        /// How many frames at the top may belong to the signal delivery (the handler, the kernel's trampoline, a
        /// sanitizer's wrappers) rather than to the thread.
        static let signalFramesLimit = 16

        /// The most heap all cached tables may hold together; one bigger table is read, used once and not kept.
        let memoryBudget: Int
        private let lock = _Lock()
        /// Tables by the path they were read from, with when each was last used; `nil` for a file without one (not
        /// read again). Protected by `lock`.
        private var images: [String: (symbols: _ImageSymbols?, lastUse: UInt64)] = [:]
        /// The sum of the cached tables' `memory`. Protected by `lock`.
        private var memory = 0
        /// A counter that orders uses, for evicting the least recently used table. Protected by `lock`.
        private var uses: UInt64 = 0

        init(memoryBudget: Int) {
            self.memoryBudget = memoryBudget
        }

        /// The backtrace of a capture: `addresses` as `backtrace()` returned them in the signal handler, innermost
        /// first, and the program counter the thread was interrupted at (0 when unknown).
        func backtrace(
            ofCapturedAddresses addresses: ArraySlice<UInt>,
            interruptedAt programCounter: UInt
        ) -> LoopBacktrace {
            lock.withLock {
                // The unwinder walks through the signal frame to the interrupted instruction, whose address it reports
                // exactly (not a return address): everything above it is the handler's.
                let top = addresses.prefix(Self.signalFramesLimit)
                if programCounter != 0, let start = top.firstIndex(of: programCounter) {
                    let innermost = frame(at: programCounter, isReturnAddress: false)
                    let callers = addresses[(start + 1)...].map { frame(at: $0, isReturnAddress: true) }
                    return LoopBacktrace(frames: [innermost] + callers)
                }
                // No such frame: ThreadSanitizer ran the handler later than the signal came (at the thread's next
                // intercepted call), with the saved context. Drop the handler's frame, what called `backtrace()` in it,
                // and the run of delivery frames that called the handler; the thread was in the frame after those.
                let frames = addresses.map { frame(at: $0, isReturnAddress: true) }
                let handler = UInt(mainline_backtrace_handler_address())
                var first =
                    frames.prefix(Self.signalFramesLimit).firstIndex { frame in
                        frame.symbol != nil && frame.address &- frame.offset == handler
                    }.map { $0 + 1 } ?? 0
                while first < frames.count && Self.isSignalDelivery(frames[first].symbol) {
                    first += 1
                }
                return LoopBacktrace(frames: Array(frames[first...]))
            }
        }

        /// Whether a function belongs to the signal's delivery: the kernel's return trampoline, or ThreadSanitizer's
        /// handler and interceptor machinery.
        static func isSignalDelivery(_ symbol: String?) -> Bool {
            guard let symbol else { return false }
            return symbol == "__restore_rt" || symbol.hasPrefix("__tsan") || symbol.hasPrefix("_ZN6__tsan")
                || symbol.hasPrefix("__sanitizer") || symbol.hasPrefix("_ZN11__sanitizer")
                || symbol.hasPrefix("__interceptor_") || symbol.hasPrefix("___interceptor_")
        }

        /// Names one address. A return address is looked up one byte back, inside the call instruction: a call that
        /// ends its function returns to the first byte of the next one.
        private func frame(at address: UInt, isReturnAddress: Bool) -> Frame {
            let lookup = isReturnAddress && address > 0 ? address - 1 : address
            var image = mainline_image()
            guard mainline_image_of_address(lookup, &image) else {
                return Frame(address: address, symbol: nil, image: nil, offset: 0)
            }
            let path = image.is_main_program ? "/proc/self/exe" : String(cString: image.path)
            let imageName = image.is_main_program ? Self.executableName : Self.fileName(path)
            var name: String?
            var start: UInt = 0
            if let symbols = symbols(forImageAt: path) {
                if let function = symbols.function(containing: UInt64(lookup &- image.bias)) {
                    name = function.name
                    start = UInt(function.start) &+ image.bias
                }
            } else if let exported = image.exported_symbol {
                name = String(cString: exported)
                start = image.exported_symbol_address
            }
            return Frame(
                address: address,
                symbol: name.map(Self.demangled),
                image: imageName,
                offset: name == nil ? 0 : address &- start
            )
        }

        /// The symbol table of the file at `path`, read the first time and cached within `memoryBudget`. With `lock`
        /// held.
        private func symbols(forImageAt path: String) -> _ImageSymbols? {
            uses += 1
            if let cached = images[path] {
                images[path]?.lastUse = uses
                return cached.symbols
            }
            let symbols = _ImageSymbols(path: path, maximumFunctions: memoryBudget / 16)
            let size = symbols?.memory ?? 0
            guard size <= memoryBudget else { return symbols }
            while memory + size > memoryBudget,
                let oldest = images.filter({ $0.value.symbols != nil }).min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                memory -= oldest.value.symbols?.memory ?? 0
                images[oldest.key] = nil
            }
            images[path] = (symbols, uses)
            memory += size
            return symbols
        }

        /// `name` demangled when it is a Swift symbol, unchanged otherwise.
        static func demangled(_ name: String) -> String {
            guard let demangled = mainline_swift_demangle(name) else { return name }
            defer { free(demangled) }
            return String(cString: demangled)
        }

        private static func fileName(_ path: String) -> String {
            path.split(separator: "/").last.map(String.init) ?? path
        }

        /// The executable's file name (the dynamic linker knows it only as `argv[0]`).
        private static let executableName: String = {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            guard length > 0 else { return "<executable>" }
            return fileName(String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }()
    }
}
