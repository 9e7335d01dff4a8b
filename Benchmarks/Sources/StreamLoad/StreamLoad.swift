// stream-load: the publishing process of the stream-latency benchmark (started by it; not run by hand).
//
//     stream-load --peer mainline|batched|notify --shape paced|flood --port <port> --database <name> --target <stream|channel>
//                 [--rate 1000] [--tasks 8] [--batch 1] [--warm-up 2] [--seconds 10]
//
// Publishes through a PostgresClient pool (paced: open loop at --rate; flood: --tasks calls in flight), then prints
// one LoadReport line and exits 0; exits 1 if any publishing call failed (after printing the report and the error).

import Foundation
import PostgresNIO
import StreamWire

/// The program.
@main
enum StreamLoad {
    /// Parses the command line, publishes, reports.
    static func main() async {
        do {
            let arguments = try Arguments(CommandLine.arguments.dropFirst())
            let peer = try Peer(rawValue: arguments.required("peer") as String)
            let shape = try LoadShape(rawValue: arguments.required("shape") as String)
            guard let peer, let shape else { throw Arguments.Invalid(description: "unknown --peer or --shape") }
            let client = PostgresClient(
                configuration: PostgresClient.Configuration(
                    host: "127.0.0.1",
                    port: try arguments.required("port"),
                    username: "postgres",
                    password: nil,
                    database: try arguments.required("database"),
                    tls: .disable
                )
            )
            let publish = publishCall(of: peer, through: client, to: try arguments.required("target"))
            let tally = LoadTally()
            let warmUp: Double = try arguments.value("warm-up", default: 2)
            let seconds: Double = try arguments.value("seconds", default: 10)
            let rate: Int = try arguments.value("rate", default: 1_000)
            let tasks: Int = try arguments.value("tasks", default: 8)
            let batch: Int = try arguments.value("batch", default: 1)
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                switch shape {
                case .paced:
                    await runPaced(rate: rate, warmUpSeconds: warmUp, seconds: seconds, publish: publish, tally: tally)
                case .flood:
                    await runFlood(
                        tasks: tasks,
                        batch: batch,
                        warmUpSeconds: warmUp,
                        seconds: seconds,
                        publish: publish,
                        tally: tally
                    )
                }
                group.cancelAll()
            }
            print(tally.finalReport().line)
            if let error = tally.error {
                FileHandle.standardError.write(
                    Data("stream-load: a publishing call failed: \(String(reflecting: error))\n".utf8)
                )
                exit(1)
            }
        } catch {
            FileHandle.standardError.write(Data("stream-load: \(error)\n".utf8))
            exit(2)
        }
    }
}
