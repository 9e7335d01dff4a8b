#if Postgres
import CoreMetrics
import Logging
import PostgresNIO
import ServiceLifecycle

/// A subscriber is a service: put it in a `ServiceGroup` (after the loop's service, so that it stops first) and it
/// reads until the group shuts down gracefully or is cancelled.
extension StreamSubscriber: Service {
    /// Connects, listens and reads until the calling task is cancelled or, in a `ServiceGroup`, until a graceful
    /// shutdown begins; then it closes the connection and returns. It reconnects whenever the connection ends, fails
    /// or stops answering. Call it once, from any task.
    ///
    /// Connection failures are logged (warning) and retried, never thrown: a database that is down is waited for; the
    /// connection that listens again after failures is logged too ("listening again", info, with how long it was away).
    /// Like postgres-nio's `PostgresClient.run()`, it returns normally when cancelled, so a service group sees a clean
    /// end. Subscriptions keep their positions, so a later `run()` goes on where this one stopped.
    ///
    /// - Throws: ``StreamError/alreadyRunning`` at once when another `run()` of this subscriber has not returned yet.
    public func run() async throws {
        try await cancelWhenGracefulShutdown { try await self.runUntilCancelled() }
    }

    private func runUntilCancelled() async throws {
        let alreadyRunning = registry.withLock { registry in
            defer { registry.isRunning = true }
            return registry.isRunning
        }
        if alreadyRunning { throw StreamError.alreadyRunning }
        defer { registry.withLock { $0.isRunning = false } }

        var delay = options.initialReconnectDelay
        var connectionID = 0
        // Since when the listening connection is gone, and how many attempts failed since: said once it is back.
        var away: (since: ContinuousClock.Instant, failures: Int)?
        while !Task.isCancelled {
            connectionID += 1
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration,
                    id: connectionID,
                    logger: logger
                )
                do {
                    try await listen(on: connection) {
                        // Listening: the next failure starts the backoff afresh.
                        delay = self.options.initialReconnectDelay
                        if let (since, failures) = away {
                            logger.info(
                                "stream subscriber: listening again",
                                metadata: [
                                    "away": "\(ContinuousClock.now - since)", "failedAttempts": "\(failures)",
                                    "channel": "\(schema.channel)",
                                ]
                            )
                            away = nil
                        }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
            } catch {
                registry.withLock { $0.counts.isConnected = false }
                if Task.isCancelled { break }
                registry.withLock { $0.counts.connectionFailures += 1 }
                away = (away?.since ?? .now, (away?.failures ?? 0) + 1)
                Counter(label: "mainline_stream_reconnects", factory: metricsFactory).increment()
                logger.warning(
                    "stream subscriber: listening connection failed; reconnecting",
                    metadata: ["error": "\(describe(error))", "delay": "\(delay)"]
                )
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, options.maximumReconnectDelay)
        }
    }

    /// One connection's life: `LISTEN`, then hints, reads and health checks side by side until one of them fails.
    /// Always ends by throwing.
    private func listen(on connection: PostgresConnection, listening: () -> Void) async throws {
        try await schema.create(on: connection, logger: logger)
        // Before anything is claimed on this connection: the group members' claims name its session.
        let session = try await GroupSession.acquire(on: connection, schema: schema, logger: logger)
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        defer {
            wake.finish()
            registry.withLock { registry in
                registry.wake = nil
                registry.session = nil
            }
        }
        try await connection.listen(on: schema.channel) { hints in
            registry.withLock { registry in
                registry.counts.connections += 1
                registry.counts.isConnected = true
                registry.wake = wake
                registry.session = session
            }
            listening()
            logger.debug("stream subscriber: listening", metadata: ["channel": "\(schema.channel)"])
            // LISTEN is in place, so whatever commits from now on is hinted: read every subscription once now, to
            // place what was committed while there was no connection.
            markDue { _ in true }
            for member in registry.withLock({ Array($0.groups.values) }) {
                member.machine.withLock { $0.connected() }
            }
            markGroupsDue(renew: false)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await hint in hints { self.receive(hint: hint.payload) }
                    throw StreamError.connectionEnded
                }
                group.addTask { try await self.read(on: connection, wakes: wakes) }
                group.addTask { try await self.checkHealth(of: connection) }
                group.addTask {
                    while true {
                        try await Task.sleep(for: self.options.pollInterval)
                        self.markDue { _ in true }
                    }
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: self.options.positionFlushInterval)
                        self.registry.withLock { registry in
                            guard
                                registry.subscriptions.values.contains(where: { $0.positionName != nil })
                                    || !registry.retired.isEmpty
                            else { return }
                            registry.positionsDue = true
                            registry.wake?.yield()
                        }
                    }
                }
                group.addTask {
                    // Renews the members' leases, writes their acknowledgements, and claims what other members'
                    // expired leases freed.
                    while true {
                        try await Task.sleep(for: self.options.groupLease / 3)
                        self.markGroupsDue(renew: true)
                    }
                }
                do {
                    try await group.next()
                    throw CancellationError()  // only the reader returns, when cancelled
                } catch {
                    if error is CancellationError || Task.isCancelled {
                        // Stopping: a task of its own, not cancelled, writes what must not be lost.
                        await Task { await self.writeBeforeStopping(on: connection) }.value
                    }
                    // Closing ends the hints and fails (or, through `queryUnlessClosed`, abandons) every query still
                    // waiting on the connection, so the other tasks end too.
                    try? await connection.close()
                    group.cancelAll()
                    throw error
                }
            }
        }
    }

    /// A description of `error` for the log. `PSQLError`'s own hides everything (bound values may be secret); its
    /// code and the server's message and SQL state are what an operator needs.
    func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        var parts = ["PSQLError \(error.code)"]
        if let message = error.serverInfo?[.message] { parts.append(message) }
        if let state = error.serverInfo?[.sqlState] { parts.append("SQLSTATE \(state)") }
        if let underlying = error.underlying { parts.append("\(underlying)") }
        return parts.joined(separator: ": ")
    }

    /// Handles one hint: `"<sequence> <stream>"`.
    func receive(hint payload: String) {
        guard let space = payload.firstIndex(of: " "), let sequence = Int64(payload[..<space]),
            case let stream = String(payload[payload.index(after: space)...]), !stream.isEmpty
        else {
            registry.withLock { $0.counts.malformedHints += 1 }
            Counter(
                label: "mainline_stream_bad_input",
                dimensions: [("kind", "malformed_hint")],
                factory: metricsFactory
            )
            .increment()
            logger.warning(
                "stream subscriber: skipped a hint",
                metadata: ["error": "\(StreamError.malformedHint(payload: payload))"]
            )
            return
        }
        let known = registry.withLock { registry in
            var known = false
            for (id, subscription) in registry.subscriptions where subscription.stream == stream {
                known = true
                // A hint for what the subscription already has needs no read.
                if (subscription.lastSequence ?? .min) < sequence { registry.due.insert(id) }
            }
            for (id, member) in registry.groups where member.stream == stream {
                known = true
                registry.dueGroups.insert(id)
            }
            if known { registry.wake?.yield() } else { registry.counts.unknownStreamHints += 1 }
            return known
        }
        if !known {
            Counter(
                label: "mainline_stream_bad_input",
                dimensions: [("kind", "unknown_stream_hint")],
                factory: metricsFactory
            ).increment()
            logger.debug(
                "stream subscriber: skipped a hint for a stream no subscription reads",
                metadata: ["stream": "\(stream)", "sequence": "\(sequence)"]
            )
        }
    }

    /// Sends `SELECT 1` every health-check interval; throws when one fails or takes longer than the timeout.
    private func checkHealth(of connection: PostgresConnection) async throws {
        while true {
            try await Task.sleep(for: options.healthCheckInterval)
            let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    _ = try await connection.queryUnlessClosed("SELECT 1", logger: self.logger)
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: self.options.healthCheckTimeout)
                    return false
                }
                let first = try await group.next() ?? false
                if !first {
                    let error = StreamError.connectionUnresponsive(timeout: options.healthCheckTimeout)
                    logger.warning(
                        "stream subscriber: replacing the listening connection",
                        metadata: ["error": "\(error)"]
                    )
                    try? await connection.close()  // fails the query, so the group can end
                }
                group.cancelAll()
                return first
            }
            if !answered { throw StreamError.connectionUnresponsive(timeout: options.healthCheckTimeout) }
        }
    }

    /// Reads every due subscription's stream, then waits for a wake-up; returns only when cancelled.
    private func read(on connection: PostgresConnection, wakes: AsyncStream<Void>) async throws {
        var wakeUps = wakes.makeAsyncIterator()
        while !Task.isCancelled {
            let (due, dueGroups, positionsDue) = registry.withLock { registry in
                defer {
                    registry.due.removeAll()
                    registry.dueGroups.removeAll()
                    registry.positionsDue = false
                }
                return (
                    registry.due.compactMap { registry.subscriptions[$0] },
                    registry.dueGroups.compactMap { registry.groups[$0] },
                    registry.positionsDue
                )
            }
            if positionsDue { try await writePositions(on: connection) }
            var refused: [Int] = []
            for subscription in due.sorted(by: { $0.id < $1.id }) where !subscription.isCancelled {
                if try await catchUp(subscription, on: connection) == .refused { refused.append(subscription.id) }
            }
            var refusedGroups: [Int] = []
            for member in dueGroups.sorted(by: { $0.id < $1.id }) {
                if try await serve(member, on: connection) == .refused { refusedGroups.append(member.id) }
            }
            if !refused.isEmpty || !refusedGroups.isEmpty {
                try await Task.sleep(for: options.retryInterval)
                registry.withLock { registry in
                    registry.due.formUnion(refused)
                    registry.dueGroups.formUnion(refusedGroups)
                }
                continue
            }
            guard await wakeUps.next() != nil else { return }
        }
    }
}
#endif
