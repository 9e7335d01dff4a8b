extension LoopBacktrace {
    /// One frame of a ``LoopBacktrace``: an address, and what the binary it is in says about it.
    ///
    /// All operations on `Frame` are thread-safe: it is a value.
    public struct Frame: Sendable, Hashable, CustomStringConvertible {
        /// The return address: where the thread continues when the frame's call returns. For frame `#0`, the address of
        /// the instruction the thread was about to run.
        public var address: UInt
        /// The function: its demangled Swift name, or its C name; `nil` when the binary does not name it.
        public var symbol: String?
        /// The file name of the executable or library holding `address`; `nil` when no loaded image holds it.
        public var image: String?
        /// `address` minus the first address of `symbol`; 0 when `symbol` is `nil`.
        public var offset: UInt

        /// A frame with the given parts.
        ///
        /// - Parameters:
        ///   - address: The return address (the interrupted instruction for frame `#0`).
        ///   - symbol: The function's name, or `nil`.
        ///   - image: The file name of the binary holding `address`, or `nil`.
        ///   - offset: `address` minus the function's first address (0 without a symbol).
        package init(address: UInt, symbol: String?, image: String?, offset: UInt) {
            self.address = address
            self.symbol = symbol
            self.image = image
            self.offset = offset
        }

        /// `0x000055d1c0a1b2c3 Dashboard.Workers.spin() -> () + 42 in dashboard`; the symbol or the image is left out
        /// when unknown.
        public var description: String {
            let hex = String(address, radix: 16)
            var text = "0x" + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
            if let symbol {
                text += " \(symbol) + \(offset)"
            }
            if let image {
                text += " in \(image)"
            }
            return text
        }
    }
}
