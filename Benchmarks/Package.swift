// swift-tools-version:6.1
//
// Mainline's benchmarks: a package of its own, so that `swift test` at the root never builds the harness.
// Run with `swift package benchmark` from this directory (see README.md).

import PackageDescription

let package = Package(
    name: "MainlineBenchmarks",
    dependencies: [
        // The `Postgres` trait builds MainlinePostgres (and postgres-nio) for the stream-latency harness.
        .package(name: "Mainline", path: "..", traits: ["Postgres"]),
        // Only the MallocInterposer trait: the default traits also pull swift-runtime-interposer, which this
        // package does not need (it measures mallocs, not ARC traffic).
        .package(url: "https://github.com/ordo-one/package-benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        // The no-op metrics handler, for the instrumentation group.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // `ServiceContext`, for the tracing group.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // `AsyncChannel`, the peer of the `.suspend` mailbox in the waiting-producers group.
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        // The NOTIFY peer of the stream-latency harness (the same version MainlinePostgres uses).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .executableTarget(
            name: "MainlineBenchmarks",
            dependencies: [
                .product(name: "MainlineLoop", package: "Mainline"),
                // The stall watchdog, for the instrumentation group.
                .product(name: "MainlineInspection", package: "Mainline"),
                .product(name: "MainlineEvents", package: "Mainline"),
                .product(name: "MainlineObservables", package: "Mainline"),
                // `TestLoop` and its schedules, for the schedule-exploration group.
                .product(name: "MainlineTesting", package: "Mainline"),
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                // `DispatchQueue` as an OpenCombine scheduler, for the subject peer's `receive(on:)`.
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                "CLoopFloor",
            ],
            path: "Benchmarks/MainlineBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "package-benchmark")
            ]
        ),
        // The C floor: the same workloads on a bare libuv loop with a lock-free MPSC queue (Sources/CLoopFloor).
        // libuv is linked directly: the root package's `CLibUV` is not a product, so it cannot be depended on here.
        // unsafeFlags are fine: this package is only ever a root package, never a dependency.
        .target(
            name: "CLoopFloor",
            path: "Sources/CLoopFloor",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra"])],
            linkerSettings: [.linkedLibrary("uv"), .linkedLibrary("pthread")]
        ),
        // Publish → deliver across two processes (README "Streams through PostgreSQL"): not an ordo-one group, because
        // an open-loop run at a fixed rate has no iterations. The measuring process subscribes; it starts
        // `stream-load`, built beside it (a dependency it only builds, never imports), to publish.
        .executableTarget(
            name: "stream-latency",
            dependencies: [
                "StreamWire",
                "stream-load",
                .product(name: "MainlinePostgres", package: "Mainline"),
                .product(name: "MainlineEvents", package: "Mainline"),
                .product(name: "MainlineLoop", package: "Mainline"),
                .product(name: "_MainlineTestSupport", package: "Mainline"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Sources/StreamLatency"
        ),
        // The publishing process of stream-latency: paced (open loop) or as fast as it can.
        .executableTarget(
            name: "stream-load",
            dependencies: [
                "StreamWire",
                .product(name: "MainlinePostgres", package: "Mainline"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Sources/StreamLoad"
        ),
        // What both processes agree on: the payload and the clock.
        .target(name: "StreamWire", path: "Sources/StreamWire"),
    ],
    swiftLanguageModes: [.v6]
)
