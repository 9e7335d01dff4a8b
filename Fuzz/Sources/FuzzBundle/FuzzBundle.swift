import Foundation
import FuzzSupport
import MainlineViewModels

// Fuzzes `NavigationBundle(json:spec:)` with two specs that between them hold every row type, and the embedded
// form a route's own `Codable` types use (`JSONDecoder().decode(_:from:configuration:)`, a plain decoder).
//
// Invariants: decoding never traps and throws only the documented errors, each naming what was wrong; every decoded
// bundle prints, equals itself, and round-trips through its own JSON (see `checkDecodedBundle`).

/// libFuzzer's `LLVMFuzzerTestOneInput`, handed to the driver by the entry point.
func fuzzBundleOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let json = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    decodeAndCheck(json, spec: BundleSpecs.withoutDates, exact: true)
    decodeAndCheck(json, spec: BundleSpecs.withDates, exact: false)
    do {
        let bundle = try JSONDecoder().decode(
            NavigationBundle.self,
            from: json,
            configuration: BundleSpecs.withoutDates
        )
        checkDecodedBundle(bundle, exact: true)
    } catch {
        fuzzCheck(
            error is NavigationBundleDecodingError || error is DecodingError,
            "the embedded form threw an undocumented error: \(error)"
        )
    }
    return 0
}

private func decodeAndCheck(_ json: Data, spec: NavigationBundleSpec, exact: Bool) {
    let bundle: NavigationBundle
    do {
        bundle = try NavigationBundle(json: json, spec: spec)
    } catch {
        fuzzCheck(!error.description.isEmpty, "an error with no description")
        if case .malformedPayload = error {
            fuzzCheck(error.row == nil, "a malformed payload names a row: \(error)")
        } else {
            fuzzCheck(error.row?.isEmpty == false, "an error about a row names none: \(error)")
        }
        return
    }
    checkDecodedBundle(bundle, exact: exact)
}
