// swift-tools-version:6.1
//
// Mainline: the main loop for long-running Swift processes on Linux.
// Layers follow DESIGN.md §5: each target imports only the targets below it, and declares exactly the targets and
// products its files import (one it only builds, such as the owner-mode probe, says so beside it).

import PackageDescription

// A file sees the members of the modules it imports, not of theirs: the inspector's schema brings Foundation's JSON
// coders, and with them the standard `Synchronization`, whose `Int.AtomicRepresentation` would otherwise be ambiguous
// beside swift-atomics' in the targets that use both.
let onlyDirectImportsMembers: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "Mainline",
    products: [
        .library(name: "Mainline", targets: ["Mainline"]),
        .library(name: "MainlineLoopCore", targets: ["MainlineLoopCore"]),
        .library(name: "MainlineLoop", targets: ["MainlineLoop"]),
        .library(name: "MainlineInspection", targets: ["MainlineInspection"]),
        .library(name: "MainlineEvents", targets: ["MainlineEvents"]),
        .library(name: "MainlineObservables", targets: ["MainlineObservables"]),
        .library(name: "MainlineViewModels", targets: ["MainlineViewModels"]),
        .library(name: "MainlineCoordinators", targets: ["MainlineCoordinators"]),
        .library(name: "MainlineBindings", targets: ["MainlineBindings"]),
        .library(name: "MainlineTesting", targets: ["MainlineTesting"]),
        // Not API (the underscore says so, as swift-syntax's `_SwiftSyntaxTestSupport`): the child processes of
        // Mainline's own tests, a product only because the examples' package (a package of its own) tests with it.
        .library(name: "_MainlineTestSupport", targets: ["_MainlineTestSupport"]),
        // Not re-exported by `Mainline`: it pulls in swift-service-lifecycle.
        .library(name: "MainlineServiceLifecycle", targets: ["MainlineServiceLifecycle"]),
        // Not re-exported by `Mainline`, and empty unless the `Postgres` trait is enabled (see `traits`).
        .library(name: "MainlinePostgres", targets: ["MainlinePostgres"]),
        // Attaches to a process's `LoopInspector` and shows its loops live in the terminal (`--once --json` for
        // scripts, `--dump` for a bug report).
        .executable(name: "mainline-console", targets: ["mainline-console"]),
    ],
    // A target is always compiled, but a trait-conditional dependency is not: without `Postgres` (the default),
    // `MainlinePostgres` compiles to an empty module and postgres-nio is never built. Users who want it write
    // `.package(url: …, from: …, traits: ["Postgres"])`; this package's own commands add `--traits Postgres`.
    traits: [
        .trait(
            name: "Postgres",
            description: "MainlinePostgres: streams carried between processes through PostgreSQL (builds postgres-nio)."
        )
    ],
    dependencies: [
        // `swift package generate-documentation`: every product's DocC catalog builds with the plugin (.ci/docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        // The lazy events' pending flag, an EventLoop's snapshot counters and the loops' context switch (not
        // `Synchronization`, whose Mutex misleads ThreadSanitizer here).
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        // Loop metrics (MainlineLoop) and the loop as a service (MainlineServiceLifecycle).
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // `ServiceContext` (module ServiceContextModule, in the Instrumentation product), carried by posts and timers.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Tests only: the loop's timers rendered by the real Prometheus exposition. Library users never fetch it.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // MainlinePostgres only, and only with the `Postgres` trait: built by no one who doesn't enable it.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // libuv, found through pkg-config; `apt-get install -y libuv1-dev` provides it.
        .systemLibrary(
            name: "CLibUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]
        ),
        // The libdispatch main-queue SPI (what CoreFoundation's run loop uses on Linux) and a thread-id helper.
        .target(name: "CMainlineShims"),
        // The inspector's documents as `Codable` types, and the one JSON coder for them: the inspector encodes them,
        // `mainline-console` decodes them. Foundation (its JSON coders) and nothing else.
        .target(name: "MainlineInspectorSchema"),
        // Capturing another thread's stack and naming its frames: the stall watchdog's backtraces (MainlineInspection).
        .target(name: "CMainlineBacktrace"),
        // The scheduling core, without libuv: contracts, clock, timers, settle, the job queue, the scheduler, the flight
        // recorder, snapshots, misuse diagnostics and metrics. `TestLoop` runs on it alone. The recorder describes
        // itself to an inspector in the schema's types.
        .target(
            name: "MainlineLoopCore",
            dependencies: [
                "CMainlineShims",
                "MainlineInspectorSchema",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                // The loop's "carry the service context" switch, read on every post, and the inspection registry.
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: onlyDirectImportsMembers
        ),
        // The libuv loops on the core: the engine, `MainLoop`, `EventLoop` (re-exports MainlineLoopCore).
        .target(
            name: "MainlineLoop",
            dependencies: [
                "MainlineLoopCore",
                "CLibUV",
                "CMainlineShims",
                "MainlineInspectorSchema",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                // An EventLoop's snapshot counters (read from other threads without a lock on the loop's hot path).
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: onlyDirectImportsMembers
        ),
        // Observability on top of the loops: the inspector's socket, the stall watchdog and its backtraces.
        .target(
            name: "MainlineInspection",
            dependencies: [
                "MainlineLoop", "MainlineLoopCore", "MainlineInspectorSchema", "CLibUV", "CMainlineBacktrace",
                "CMainlineShims",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "MainlineEvents",
            dependencies: [
                "MainlineLoop", "MainlineInspectorSchema", .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: onlyDirectImportsMembers
        ),
        .target(
            name: "MainlineObservables",
            dependencies: ["MainlineLoop", "MainlineEvents"]
        ),
        .target(
            name: "MainlineViewModels",
            dependencies: ["MainlineLoop", "MainlineObservables", "MainlineInspectorSchema"]
        ),
        .target(
            name: "MainlineCoordinators",
            // MainlineEvents: `DataCache` ends the `values` it handed out (`_WakeupsOwner`) when it goes.
            dependencies: [
                "MainlineEvents", "MainlineLoop", "MainlineObservables", "MainlineViewModels",
                "MainlineInspectorSchema",
            ]
        ),
        .target(name: "MainlineBindings", dependencies: ["MainlineLoop", "MainlineEvents", "MainlineObservables"]),
        // The scheduling core only (DESIGN.md §5): `TestLoop` links no libuv. Test doubles of a layer above live beside
        // what they stand in for.
        .target(name: "MainlineTesting", dependencies: ["MainlineLoopCore"]),
        // CMainlineShims: ChildProcess's close-on-exec pipes.
        .target(name: "_MainlineTestSupport", dependencies: ["CMainlineShims"]),
        .target(
            name: "Mainline",
            dependencies: [
                "MainlineLoopCore", "MainlineLoop", "MainlineInspection", "MainlineEvents", "MainlineObservables",
                "MainlineViewModels", "MainlineCoordinators", "MainlineBindings",
            ]
        ),

        .target(
            name: "MainlineServiceLifecycle",
            dependencies: [
                // MainlineInspection: the service's stall watchdog (`stallThreshold`).
                "MainlineLoop", "MainlineInspection",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // Empty without the `Postgres` trait: its files are `#if Postgres`, and postgres-nio is a dependency only then.
        .target(
            name: "MainlinePostgres",
            dependencies: [
                "MainlineLoop", "MainlineEvents", "MainlineInspectorSchema",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                // `StreamSubscriber` is a `Service` (postgres-nio depends on swift-service-lifecycle anyway).
                .product(
                    name: "ServiceLifecycle",
                    package: "swift-service-lifecycle",
                    condition: .when(traits: ["Postgres"])
                ),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),

        // The inspector's client: Foundation and the schema's types only (no loop), so it reads any process's
        // inspector, of whatever Mainline version serves schema 1.
        .executableTarget(name: "mainline-console", dependencies: ["MainlineInspectorSchema"]),

        // Owner mode needs the process main thread, which the test runner owns: the tests launch this
        // program as a subprocess and assert on what it reports.
        .executableTarget(
            name: "mainline-owner-probe",
            dependencies: ["MainlineLoop", "CMainlineShims"],
            path: "Tests/OwnerModeProbe"
        ),
        .testTarget(
            name: "MainlineLoopTests",
            // MainlineEvents: the guest-mode suite also runs a lazy event on a real loop (it must share that suite).
            // mainline-owner-probe and mainline-console are built, not imported: the owner-mode tests run the probe as a
            // child process, and the inspector's tests the console as another user.
            dependencies: [
                "MainlineLoopCore", "MainlineLoop", "MainlineInspection", "MainlineEvents", "MainlineTesting",
                "_MainlineTestSupport", "CMainlineShims", "MainlineInspectorSchema", "mainline-owner-probe",
                "mainline-console",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                // The backtrace tests' threads: when to stop spinning, how far they got.
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        // A second process for MainlinePostgresTests: publishes events to a stream through its own connection pool, and
        // can subscribe to it on its own main loop and report what it saw.
        // Built (empty of work without the `Postgres` trait), not imported.
        .executableTarget(
            name: "mainline-postgres-publisher",
            dependencies: [
                "MainlinePostgres", "MainlineEvents", "MainlineLoop", "_MainlineTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
            ],
            path: "Tests/PostgresPublisherProbe"
        ),
        // A member of a consumer group in a process of its own, for MainlinePostgresTests' group tests (they start
        // several and kill one). Built (empty of work without the `Postgres` trait), not imported.
        .executableTarget(
            name: "mainline-postgres-member",
            dependencies: [
                "MainlinePostgres", "MainlineEvents", "MainlineLoop", "_MainlineTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PostgresMemberProbe"
        ),
        // Runs against a real PostgreSQL server it starts itself (`initdb`, `pg_ctl`); empty without `Postgres`.
        .testTarget(
            name: "MainlinePostgresTests",
            dependencies: [
                "MainlinePostgres", "MainlineEvents", "MainlineLoop", "_MainlineTestSupport", "CMainlineShims",
                // The explorations' seeded generator.
                "MainlineTesting",
                // The streams in the inspector's snapshot.
                "MainlineInspectorSchema",
                "mainline-postgres-publisher", "mainline-postgres-member",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(
                    name: "ServiceLifecycle",
                    package: "swift-service-lifecycle",
                    condition: .when(traits: ["Postgres"])
                ),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // The console's views and modes: @testable for its views, and run as a child process against an inspector the
        // tests serve (MainlineLoop) for its modes and exit statuses.
        .testTarget(
            name: "MainlineConsoleTests",
            dependencies: [
                "mainline-console", "MainlineLoop", "MainlineInspection", "MainlineInspectorSchema",
                "_MainlineTestSupport",
            ]
        ),
        .testTarget(
            name: "MainlineServiceLifecycleTests",
            dependencies: [
                "MainlineServiceLifecycle", "MainlineLoop",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "MainlineTestingTests",
            dependencies: [
                "MainlineTesting", "MainlineLoop",
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                // A real tracer, for a trace that continues on the loop.
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "MainlineEventsTests",
            dependencies: [
                "MainlineEvents", "MainlineLoop", "MainlineTesting", "CMainlineShims", "MainlineInspectorSchema",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // A process that starts a PostgresTestCluster and then ends (SIGKILL, a trap, exit) with it running: the
        // support's tests check that the cluster dies with it. Built, not imported.
        .executableTarget(
            name: "mainline-cluster-probe",
            dependencies: ["_MainlineTestSupport"],
            path: "Tests/PostgresClusterProbe"
        ),
        .testTarget(
            name: "_MainlineTestSupportTests",
            dependencies: ["_MainlineTestSupport", "mainline-cluster-probe"]
        ),
        .testTarget(
            name: "MainlineObservablesTests",
            dependencies: ["MainlineObservables", "MainlineEvents", "MainlineLoop", "MainlineTesting"]
        ),
        .testTarget(
            name: "MainlineViewModelsTests",
            dependencies: [
                "MainlineViewModels", "MainlineObservables", "MainlineEvents", "MainlineLoop", "MainlineTesting",
                "CMainlineShims", "MainlineInspectorSchema",
            ]
        ),
        .testTarget(
            name: "MainlineCoordinatorsTests",
            dependencies: [
                "MainlineCoordinators", "MainlineViewModels", "MainlineObservables", "MainlineLoop", "MainlineTesting",
                "MainlineInspectorSchema",
            ]
        ),
        .testTarget(
            name: "MainlineBindingsTests",
            dependencies: ["MainlineBindings", "MainlineObservables", "MainlineLoop", "MainlineTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
