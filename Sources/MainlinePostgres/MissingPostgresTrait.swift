#if !Postgres
// Without the `Postgres` trait every other file of this module is empty, and `import MainlinePostgres` still
// succeeds: a user who forgot the trait would read "cannot find type 'StreamPublisher' in scope" and nothing else. So
// each public type of the module has an unavailable stand-in here whose message names the trait and the line to
// write. Hidden from the documentation (which is built without the trait): they are not API, only a signpost.
// `MissingPostgresTraitTests` checks that every public type of the module has one.

/// Without the package trait `Postgres`, `StreamPublisher` does not exist: this stand-in only says how to enable it.
/// Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamPublisher {}

/// Without the package trait `Postgres`, `StreamSubscriber` does not exist: this stand-in only says how to enable it.
/// Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamSubscriber {}

/// Without the package trait `Postgres`, `StreamSubscription` does not exist: this stand-in only says how to enable
/// it. Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamSubscription {}

/// Without the package trait `Postgres`, `StreamGroupSubscription` does not exist: this stand-in only says how to
/// enable it. Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamGroupSubscription {}

/// Without the package trait `Postgres`, `StreamSchema` does not exist: this stand-in only says how to enable it.
/// Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamSchema {}

/// Without the package trait `Postgres`, `StreamRetention` does not exist: this stand-in only says how to enable it.
/// Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamRetention {}

/// Without the package trait `Postgres`, `StreamRetentionService` does not exist: this stand-in only says how to
/// enable it. Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamRetentionService {}

/// Without the package trait `Postgres`, `StreamError` does not exist: this stand-in only says how to enable it.
/// Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamError {}

/// Without the package trait `Postgres`, `StreamDelivery` does not exist: this stand-in only says how to enable it.
/// Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamDelivery<Value> {}

/// Without the package trait `Postgres`, `StreamEvent` does not exist: this stand-in only says how to enable it.
/// Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamEvent<Value> {}

/// Without the package trait `Postgres`, `StreamResync` does not exist: this stand-in only says how to enable it.
/// Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamResync {}

/// Without the package trait `Postgres`, `StreamStart` does not exist: this stand-in only says how to enable it.
/// Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum StreamStart {}

/// Without the package trait `Postgres`, `PostgresURL` does not exist: this stand-in only says how to enable it.
/// Never usable, on any thread.
@_documentation(visibility: internal)
@available(
    *,
    unavailable,
    message:
        "MainlinePostgres needs the package trait \"Postgres\": depend on Mainline with .package(url: \"<its git URL>\", from: \"<version>\", traits: [\"Postgres\"]) or .package(path: \"<its folder>\", traits: [\"Postgres\"]) (in Mainline's own checkout: swift build --traits Postgres)"
)
public enum PostgresURL {}
#endif
