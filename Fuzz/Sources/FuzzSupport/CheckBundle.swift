import Foundation
import MainlineViewModels

/// Checks what must hold for every bundle decoded from outside input: it prints, equals itself (also as a hash),
/// can be written as JSON, and what it writes reads back as a bundle that prints too.
///
/// Callable from any thread.
///
/// - Parameters:
///   - bundle: A bundle decoded from fuzzed bytes.
///   - exact: Whether the bundle read back must equal `bundle`: true for specs without dates (a date may come back
///     moved by half a unit in the last place of its seconds, as ``NavigationBundleSpecType/date`` documents).
public func checkDecodedBundle(_ bundle: NavigationBundle, exact: Bool) {
    let text = "\(bundle)"
    fuzzCheck(!text.isEmpty, "a decoded bundle printed nothing")
    fuzzCheck(bundle == bundle, "a decoded bundle is not equal to itself: \(text)")
    fuzzCheck(bundle.hashValue == bundle.hashValue, "a decoded bundle's hash changed: \(text)")
    let json: Data
    do {
        json = try bundle.jsonData()
    } catch {
        fuzzCheck(false, "a decoded bundle could not be written: \(error); \(text)")
        return
    }
    let back: NavigationBundle
    do {
        back = try NavigationBundle(json: json, spec: bundle.spec)
    } catch {
        fuzzCheck(
            false,
            "what a decoded bundle wrote does not read back: \(error); \(String(decoding: json, as: UTF8.self))"
        )
        return
    }
    fuzzCheck(!"\(back)".isEmpty, "a bundle read back printed nothing")
    fuzzCheck(back == back, "a bundle read back is not equal to itself: \(back)")
    if exact {
        fuzzCheck(back == bundle, "a bundle did not round-trip: \(text) came back as \(back)")
    }
}
