// swift-tools-version:6.0
//
// Mainline's fuzz targets: a package of its own (the root by path), so `swift test` at the root never builds them
// and users never see them. Built and run by `.ci/fuzz` with libFuzzer and AddressSanitizer; see README.md.

import PackageDescription

let package = Package(
    name: "MainlineFuzz",
    dependencies: [
        .package(name: "Mainline", path: "..")
    ],
    targets: [
        // libFuzzer's driver, declared for Swift, which every fuzz target calls from its entry point,
        // and the invariants every decoded bundle must hold.
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "MainlineViewModels", package: "Mainline")],
            path: "Sources/FuzzSupport"
        ),
        // `Route(json:)`, and the bundles its items carry.
        .executableTarget(
            name: "FuzzRoute",
            dependencies: [
                "FuzzSupport",
                .product(name: "MainlineCoordinators", package: "Mainline"),
                .product(name: "MainlineViewModels", package: "Mainline"),
            ],
            path: "Sources/FuzzRoute"
        ),
        // `NavigationBundle(json:spec:)`, and a bundle embedded in a document read by a plain `JSONDecoder`.
        .executableTarget(
            name: "FuzzBundle",
            dependencies: [
                "FuzzSupport",
                .product(name: "MainlineViewModels", package: "Mainline"),
            ],
            path: "Sources/FuzzBundle"
        ),
    ],
    swiftLanguageModes: [.v6]
)
