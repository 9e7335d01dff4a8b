#if canImport(Glibc)
import Glibc
#endif

/// What libFuzzer calls with each input: the bytes and their count; returns 0.
public typealias FuzzTestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

// libFuzzer's own entry point, linked in by `-sanitize=fuzzer`; it parses the command line (corpus folders,
// `-max_total_time`, …) and calls the callback with each input. Declared by hand: libFuzzer ships no header.
@_silgen_name("LLVMFuzzerRunDriver")
private func _LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzTestOneInput
) -> CInt

/// Runs libFuzzer with the process's command line and `callback` as its `LLVMFuzzerTestOneInput`.
///
/// Call it from a fuzz executable's entry point, the `<target>_main` SwiftPM links as `main`. Runs on the calling
/// thread, which is the process main thread.
///
/// - Parameters:
///   - argc: The argument count `main` received.
///   - argv: The arguments `main` received.
///   - callback: Called with every input; returns 0.
/// - Returns: libFuzzer's exit status.
public func runFuzzer(
    argc: CInt,
    argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ callback: FuzzTestOneInput
) -> CInt {
    var argc = argc
    var argv = argv
    return _LLVMFuzzerRunDriver(&argc, &argv, callback)
}

/// Stops the run as a crash when an invariant does not hold: libFuzzer saves the input that broke it.
///
/// Callable from any thread.
///
/// - Parameters:
///   - condition: The invariant.
///   - message: What broke, printed to standard error before the abort.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    let line = "fuzz invariant broken: \(message())\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    abort()
}
