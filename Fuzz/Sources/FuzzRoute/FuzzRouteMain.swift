import FuzzSupport

// The entry points. Both live in this one file: a `@_cdecl` function referenced from another file is emitted in
// both object files, and the link then fails with two `LLVMFuzzerTestOneInput`. No `main.swift` either: under
// `-sanitize=fuzzer` the compiler makes its top-level code a second `LLVMFuzzerTestOneInput`.

/// libFuzzer's `LLVMFuzzerTestOneInput`: checks one input. The fuzzer runtime's own `main`, which the link pulls in,
/// calls it by that name.
@_cdecl("LLVMFuzzerTestOneInput")
func llvmFuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzRouteOneInput(bytes, count)
}

/// The executable's entry point: SwiftPM links `FuzzRoute_main` as `main`. libFuzzer takes over from here, reading
/// its flags and corpus folders from the command line.
@_cdecl("FuzzRoute_main")
func fuzzRouteMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv, llvmFuzzerTestOneInput)
}
