import Foundation
import PostgresNIO
import StreamWire
import _MainlineTestSupport

/// A phase whose publishing process failed.
struct PublisherFailed: Error, CustomStringConvertible {
    /// The peer whose publisher failed.
    var peer: Peer
    /// How it ended.
    var result: ChildProcess.Result

    var description: String {
        "stream-load (\(peer.rawValue)) exited with \(result.status): \(result.standardOutput)"
    }
}

/// Runs one peer's phase: starts its receiver here, the publishing process (`stream-load`, built beside this program)
/// as a child, waits for the child to exit and for the last events to arrive, then stops the receiver.
///
/// - Parameters:
///   - peer: The peer.
///   - shape: Paced (latency) or flood (sustained rate).
///   - cluster: The database.
///   - settings: Rates and durations.
/// - Returns: The phase's figures.
/// - Throws: ``PublisherFailed``, ``ReceiverError``, or what connecting throws.
@MainActor
func runPhase(
    _ peer: Peer,
    _ shape: LoadShape,
    on cluster: PostgresTestCluster,
    settings: Settings
) async throws
    -> PhaseResult
{
    let configuration = PostgresConnection.Configuration(
        host: cluster.host,
        port: cluster.port,
        username: cluster.user,
        password: nil,
        database: cluster.database,
        tls: .disable
    )
    // A stream (or channel) per phase and peer, so a phase never sees another's events (the batched peer publishes
    // to a stream of its own, not the mainline peer's).
    let target = "bench_\(peer.rawValue)_\(shape.rawValue)"
    let tally = DeliveryTally(checksSequence: peer != .notify)
    let receiver: any Receiver =
        switch peer {
        case .mainline, .batched: try MainlineReceiver(configuration: configuration, stream: target, tally: tally)
        case .notify: NotifyReceiver(configuration: configuration, channel: target, tally: tally)
        }
    try await receiver.start()
    let loadBefore = loadAverage()
    let arguments =
        [
            "--peer", peer.rawValue, "--shape", shape.rawValue, "--port", "\(cluster.port)", "--database",
            cluster.database, "--target", target,
        ] + settings.loadArguments(for: shape, peer: peer)
    let result: ChildProcess.Result
    do {
        let child = try ChildProcess(
            try ChildProcess.builtProduct("stream-load"),
            arguments,
            standardOutput: .capture,
            standardError: .inherit
        )
        result = await child.finish()
    } catch {
        await receiver.stop()
        throw error
    }
    let report = result.standardOutput.split(separator: "\n").lazy.compactMap { LoadReport(line: $0) }.first
    guard result.status == 0, let report else {
        await receiver.stop()
        throw PublisherFailed(peer: peer, result: result)
    }
    let deadline = ContinuousClock.now + settings.drainTimeout
    while tally.distinct < report.published, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(2))
    }
    let loadAfter = loadAverage()
    await receiver.stop()
    let (books, deliveries) = tally.snapshot()
    let measured = deliveries.filter { !$0.stamp.isWarmUp }
    return PhaseResult(
        peer: peer,
        shape: shape,
        report: report,
        books: books,
        latency: Percentiles(measured.map { $0.receivedAt - $0.stamp.publishedAt }),
        beforeMailbox: Percentiles(measured.filter { $0.placedAt > 0 }.map { $0.placedAt - $0.stamp.publishedAt }),
        hop: Percentiles(measured.filter { $0.placedAt > 0 }.map { $0.receivedAt - $0.placedAt }),
        lastMeasuredArrival: measured.map(\.receivedAt).max() ?? 0,
        lastArrival: deliveries.map(\.receivedAt).max() ?? 0,
        load: (loadBefore, loadAfter)
    )
}
