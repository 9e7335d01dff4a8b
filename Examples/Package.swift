// swift-tools-version:6.1
//
// Mainline's example programs: a package of their own, depending on the root by path, so that the library keeps
// libuv as its only system dependency and never builds SwiftNIO. Run one with
// `swift run --package-path Examples <name>` from the repository root (see README.md).

import PackageDescription

let package = Package(
    name: "MainlineExamples",
    dependencies: [
        // With the `Postgres` trait: pubsub-server's cluster mode (`--postgres`) carries topics through MainlinePostgres.
        .package(name: "Mainline", path: "..", traits: ["Postgres"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // pubsub-server's cluster mode: the connection pool and configurations MainlinePostgres is given.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // order-desk's HTTP server. Without its default traits: they pull in swift-configuration, which it doesn't use.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
    ],
    targets: [
        // The README's first command: a loop that owns the main thread, ticks and stops on Ctrl-C.
        .executableTarget(
            name: "hello-loop",
            dependencies: [
                .product(name: "Mainline", package: "Mainline"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "hello-loop"
        ),
        // The loop as a guest of an async main.
        .executableTarget(
            name: "guest-loop",
            dependencies: [.product(name: "Mainline", package: "Mainline")],
            path: "guest-loop"
        ),
        // A terminal sign-up flow of coordinators, with a route deep link.
        .executableTarget(
            name: "sign-up",
            dependencies: [
                .product(name: "Mainline", package: "Mainline"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "sign-up",
            exclude: ["confirm-route.json"]
        ),
        // A line-protocol publish/subscribe server: SwiftNIO for the sockets, the main loop for topics and clients;
        // with `--postgres`, topics become MainlinePostgres streams shared by every server of one database.
        .executableTarget(
            name: "pubsub-server",
            dependencies: [
                .product(name: "Mainline", package: "Mainline"),
                .product(name: "MainlineServiceLifecycle", package: "Mainline"),
                .product(name: "MainlinePostgres", package: "Mainline"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "pubsub-server"
        ),
        // An HTTP service (Hummingbird 2) whose state lives on the main loop: async Swift to the loop and back.
        .executableTarget(
            name: "order-desk",
            dependencies: [
                .product(name: "Mainline", package: "Mainline"),
                .product(name: "MainlineServiceLifecycle", package: "Mainline"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "order-desk"
        ),
        // A live terminal table of worker jobs from a data source tree, redrawn by replaying change sets.
        .executableTarget(
            name: "dashboard",
            dependencies: [
                .product(name: "Mainline", package: "Mainline"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // With --inspect: the stall watchdog's logger, silenced (the terminal is the table's).
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "dashboard"
        ),
        // Every example, run as a user runs it: in a terminal under tmux, or over real TCP connections.
        .testTarget(
            name: "ExamplesTests",
            dependencies: [
                .product(name: "MainlineTesting", package: "Mainline"),
                // The examples run as child processes (`ChildProcess`); not API, Mainline's own test support.
                .product(name: "_MainlineTestSupport", package: "Mainline"),
                // order-desk's routes, tested in-process on a `TestLoop` and on `MainLoop.main`.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // Built, not imported (except dashboard's table renderer and order-desk's routes, `@testable`): the
                // tests run them as users do.
                "hello-loop", "sign-up", "pubsub-server", "dashboard", "order-desk",
                // The root package's console, built beside the examples and run against their `--inspect` sockets.
                .product(name: "mainline-console", package: "Mainline"),
            ],
            path: "Tests/ExamplesTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
