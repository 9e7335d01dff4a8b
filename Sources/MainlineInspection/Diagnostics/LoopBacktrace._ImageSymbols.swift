import CMainlineBacktrace
import MainlineLoop
import MainlineLoopCore

extension LoopBacktrace {
    /// The function symbols of one ELF file (its `.symtab`, or its `.dynsym` when stripped), sorted for lookup.
    ///
    /// All operations on `_ImageSymbols` are thread-safe: the table is immutable once read.
    final class _ImageSymbols: @unchecked Sendable {
        // @unchecked Sendable: `table` is built in `init` and only read afterwards (binary search), then freed in
        // `deinit`, when no one else can hold the object.
        private let table: OpaquePointer
        /// Bytes of heap the table holds (16 per function); its names stay in a file mapping the kernel can drop.
        let memory: Int

        /// Reads the file at `path`; `nil` when it is not a readable ELF file with symbols, or has more than
        /// `maximumFunctions` in `.symtab` and none in `.dynsym` within that limit.
        init?(path: String, maximumFunctions: Int) {
            guard let table = mainline_elf_symbols_open(path, maximumFunctions) else { return nil }
            self.table = table
            self.memory = mainline_elf_symbols_memory(table)
        }

        deinit {
            mainline_elf_symbols_close(table)
        }

        /// The function whose code holds `fileAddress` (an address as linked, before the image's load bias): its raw
        /// (mangled) name and first address; `nil` when no function covers it.
        func function(containing fileAddress: UInt64) -> (name: String, start: UInt64)? {
            var start: UInt64 = 0
            guard let name = mainline_elf_symbols_lookup(table, fileAddress, &start) else { return nil }
            return (String(cString: name), start)
        }
    }
}
