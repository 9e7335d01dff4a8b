#if Postgres
import Logging
import PostgresNIO

/// Positions kept in the database (``StreamStart/stored(_:initially:)``): read when a subscription first reads its
/// stream, written in batches as its consumer takes, and once more when the subscriber stops.
extension StreamSubscriber {
    /// The stored position of `subscription` under `name`, created from `initially` when the database has none; `nil`
    /// when the name belongs to another stream (the subscription is then ended, with the error logged and kept in
    /// ``StreamSubscription/failure``). Runs on the reader task only.
    func storedPosition(
        of subscription: StreamSubscription,
        name: String,
        initially: StreamStart,
        on connection: PostgresConnection
    ) async throws -> Int64? {
        let select = SubscriberStatements.storedPosition(name, in: schema)
        var found = try await row(select, on: connection)
        if found == nil {
            let initial = try await startPosition(of: subscription.stream, from: initially, on: connection)
            let insert = SubscriberStatements.storePosition(
                name,
                stream: subscription.stream,
                position: initial,
                in: schema
            )
            _ = try await connection.queryUnlessClosed(insert, logger: logger)
            // Another process may have stored the name first: its row wins.
            found = try await row(select, on: connection)
        }
        let (stream, position) = found ?? (subscription.stream, 0)
        guard stream == subscription.stream else {
            let error = StreamError.positionNameInUse(name, stream: subscription.stream, otherStream: stream)
            subscription.state.withLock { $0.failure = error }
            logger.error("stream subscriber: the subscription ends", metadata: ["error": "\(error)"])
            subscription.cancel()
            return nil
        }
        subscription.state.withLock { state in
            state.taken = position
            state.stored = position
        }
        return position
    }

    private func row(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> (String, Int64)? {
        var found: (String, Int64)?
        for try await row in try await connection.queryUnlessClosed(query, logger: logger).decode((String, Int64).self)
        {
            found = row
        }
        return found
    }

    /// Writes, in one statement, the position of every stored subscription whose consumer took something since the
    /// last write (cancelled ones included, once). Runs on the reader task, or when the subscriber stops.
    func writePositions(on connection: PostgresConnection) async throws {
        let (active, retired) = registry.withLock { registry in
            (Array(registry.subscriptions.values), registry.retired)
        }
        // Retired first: a name cancelled and subscribed again is written with the active subscription's position.
        let subscriptions = retired + active
        // A cancelled subscription's last position is written once: it is forgotten only after the write succeeded.
        let forgetRetired = {
            guard !retired.isEmpty else { return }
            self.registry.withLock { registry in registry.retired.removeAll { old in retired.contains { $0 === old } } }
        }
        var changed: [String: Int64] = [:]
        for subscription in subscriptions {
            guard let name = subscription.positionName else { continue }
            let taken = subscription.state.withLock { state in state.taken == state.stored ? nil : state.taken }
            if let taken { changed[name] = taken }
        }
        let names = Array(changed.keys)
        let positions = names.map { changed[$0] ?? 0 }
        guard !names.isEmpty else { return forgetRetired() }
        let query = SubscriberStatements.movePositions(names, to: positions, in: schema)
        _ = try await connection.queryUnlessClosed(query, logger: logger)
        forgetRetired()
        for subscription in subscriptions {
            guard let name = subscription.positionName, let position = changed[name] else { continue }
            subscription.state.withLock { $0.stored = position }
        }
    }

    /// What must reach the database before the subscriber lets go of its connection: the stored positions, the
    /// group members' acknowledgements, and the claims they will not place (handed back to the group). Runs in a task
    /// of its own (the reader's is cancelled), and gives up with the connection.
    func writeBeforeStopping(on connection: PostgresConnection) async {
        try? await writePositions(on: connection)
        for member in registry.withLock({ Array($0.groups.values) }) {
            // What it claimed and will not place now goes to the other members at once; a later `run()` joins again
            // and claims afresh.
            try? await releaseBeforeStopping(member, on: connection)
        }
    }
}
#endif
