// Publishes `count` events to one stream, as a process of its own, for MainlinePostgresTests' two-process test:
//
//     mainline-postgres-publisher <port> <database> <stream> <name> <count>
//
// The payloads are "<name> <i>" for i in 1...count, published one after another (each waits for its commit). Prints
// "published <count>" and exits 0, or prints the error and exits 1.

import Foundation

#if Postgres
import MainlinePostgres
import PostgresNIO

let arguments = CommandLine.arguments
guard arguments.count == 6, let port = Int(arguments[1]), let count = Int(arguments[5]) else {
    print("usage: mainline-postgres-publisher <port> <database> <stream> <name> <count>")
    exit(2)
}
let (database, stream, name) = (arguments[2], arguments[3], arguments[4])
let client = PostgresClient(
    configuration: .init(
        host: "127.0.0.1",
        port: port,
        username: "postgres",
        password: nil,
        database: database,
        tls: .disable
    )
)
let publisher = StreamPublisher(client: client)
do {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        for index in 1...count {
            try await publisher.publish(bytes: Array("\(name) \(index)".utf8), to: stream)
        }
        group.cancelAll()
    }
    print("published \(count)")
} catch {
    print("error: \(error)")
    exit(1)
}
#else
print("mainline-postgres-publisher: built without the Postgres trait (swift build --traits Postgres)")
exit(1)
#endif
