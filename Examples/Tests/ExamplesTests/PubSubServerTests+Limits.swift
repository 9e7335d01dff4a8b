import Foundation
import Testing
import _MainlineTestSupport

@testable import pubsub_server

#if canImport(Glibc)
import Glibc
#endif

/// `pubsub-server`'s limits over real TCP: the idle timeout (`--idle-timeout-s`), the connection limit
/// (`--max-clients`), the subscriptions and queue groups a client may hold and the topic and group names it may use. Every wait is the server's
/// own timer or a client's receive timeout; nothing sleeps.
extension PubSubServerTests {
    @Test func aClientWithNoSubscriptionThatCompletesNoCommandLineIsToldWhyAndClosed() async throws {
        let server = try Server(arguments: ["--idle-timeout-s", "1"])
        let client = try server.client()
        let start = ContinuousClock.now
        try client.send("STATS")
        #expect(client.readLine()?.hasPrefix("STATS ") == true)
        // The read blocks until the server's idle timer speaks.
        let (bye, end) = try await offPool { (client.readLine(), client.readLine()) }
        let waited = ContinuousClock.now - start
        #expect(bye == "BYE idle for 1 s")
        #expect(end == nil)
        #expect(client.isClosedByServer)
        #expect(waited >= .seconds(1), "closed \(waited) after its last command, before the idle timeout")
        #expect(await server.terminate().status == 0)
    }

    @Test func bytesThatNeverCompleteALineAreNotActivityButCompletedLinesAre() async throws {
        let server = try Server(arguments: ["--idle-timeout-s", "1"])
        let trickler = try server.client()
        let talker = try server.client()
        trickler.receiveTimeout = .milliseconds(250)
        // Each round, the trickler sends one more byte of a line it never finishes and the talker completes a line;
        // the trickler's receive timeout paces the rounds (250 ms each, more when the machine is busy).
        let (trickled, heard, talkerReplies) = try await offPool { () -> (Int, String?, [String]) in
            var talkerReplies: [String] = []
            for round in 1...40 {
                try trickler.send(bytes: Array("S".utf8))
                try talker.send("STATS")
                talkerReplies.append(talker.readLine() ?? "<nothing>")
                if let line = trickler.readLine() { return (round, line, talkerReplies) }
                if trickler.isClosedByServer { return (round, nil, talkerReplies) }
            }
            return (40, nil, talkerReplies)
        }
        #expect(heard == "BYE idle for 1 s", "after \(trickled) trickled bytes")
        trickler.receiveTimeout = .seconds(30)
        #expect(trickler.readLine() == nil)
        #expect(trickler.isClosedByServer)
        // The talker, silent for no longer than a round at a time, was never idle.
        #expect(talkerReplies.allSatisfy { $0.hasPrefix("STATS ") }, "\(talkerReplies)")
        try talker.send("STATS")
        #expect(talker.readLine()?.hasPrefix("STATS clients=1 ") == true)
        #expect(await server.terminate().status == 0)
    }

    @Test func aSubscriberIsNotIdleHoweverLongItIsSilentUntilItUnsubscribes() async throws {
        let server = try Server(arguments: ["--idle-timeout-s", "1"])
        let subscriber = try server.client()
        try subscriber.send("SUB news")
        #expect(subscriber.readLine() == "OK SUB news")
        // A client without a subscription, connected at the same time: the server's idle timer does fire meanwhile.
        let bystander = try server.client()
        #expect(try await offPool { bystander.readLine() } == "BYE idle for 1 s")
        // More than another idle period of silence (the subscriber's receive timeout is the wait): nothing comes,
        // and the connection stays open.
        subscriber.receiveTimeout = .milliseconds(1_500)
        let heard = try await offPool { subscriber.readLine() }
        #expect(heard == nil, "the subscriber heard \(heard ?? "")")
        #expect(!subscriber.isClosedByServer, "a subscriber was closed for being idle")

        subscriber.receiveTimeout = .seconds(30)
        let publisher = try server.client()
        try publisher.send("PUB news still here")
        #expect(subscriber.readLine() == "MSG news still here")
        // Without its subscription it is an idle client like any other.
        try subscriber.send("UNSUB news")
        #expect(subscriber.readLine() == "OK UNSUB news")
        #expect(try await offPool { subscriber.readLine() } == "BYE idle for 1 s")
        #expect(subscriber.readLine() == nil)
        #expect(subscriber.isClosedByServer)
        #expect(await server.terminate().status == 0)
    }

    @Test func pastMaxClientsTheNextConnectionIsToldTheServerIsFullAndClosed() async throws {
        let server = try Server(arguments: ["--max-clients", "2"])
        let first = try server.client()
        try first.send("SUB news")
        #expect(first.readLine() == "OK SUB news")
        let second = try server.client()
        try second.send("STATS")
        #expect(second.readLine()?.hasPrefix("STATS clients=2 ") == true)

        let third = try server.client()
        #expect(third.readLine() == "ERR server full")
        #expect(third.readLine() == nil)
        #expect(third.isClosedByServer)

        // The first two keep working.
        try second.send("PUB news hello")
        #expect(first.readLine() == "MSG news hello")
        try first.send("STATS")
        #expect(first.readLine()?.hasPrefix("STATS clients=2 ") == true)
        // Once one leaves, there is room again.
        try second.send("QUIT")
        #expect(second.readLine() == "BYE")
        #expect(second.readLine() == nil)
        let fourth = try server.client()
        try fourth.send("STATS")
        #expect(fourth.readLine()?.hasPrefix("STATS clients=2 ") == true)
        #expect(await server.terminate().status == 0)
    }

    @Test func aTopicWithoutSubscribersHoldsNoPlaceSoOneClientCannotFillTheTableForOthers() async throws {
        let server = try Server()
        // One client touches 10,000 distinct topics: PUBs to topics nobody subscribes to, then SUBs and UNSUBs.
        let hog = try server.client()
        try await offPool {
            for index in 0..<10_000 { try hog.send("PUB hog\(index) hello") }
            for index in 0..<500 { try hog.send("SUB held\(index)") }
            for index in 0..<500 { try hog.send("UNSUB held\(index)") }
            try hog.send("STATS")
        }
        let hogStats = try await offPool { hog.readLine(where: { $0.hasPrefix("STATS") || $0.hasPrefix("ERR") }) }
        #expect(hogStats?.hasPrefix("STATS clients=1 topics=0 published=10000 ") == true, "\(hogStats ?? "none")")
        try hog.send("QUIT")
        #expect(hog.readLine(where: { $0 == "BYE" }) == "BYE")

        // Everyone else still gets new topics, and a queue group hears what is published to its topic.
        let subscriber = try server.client()
        try subscriber.send("SUB fresh")
        #expect(subscriber.readLine() == "OK SUB fresh")
        let member = try server.client()
        try member.send("QSUB workers jobs")
        #expect(member.readLine() == "OK QSUB workers jobs")
        let publisher = try server.client()
        try publisher.send("PUB fresh news")
        try publisher.send("PUB jobs job-1")
        #expect(subscriber.readLine() == "MSG fresh news")
        #expect(member.readLine() == "MSG jobs job-1")
        try publisher.send("STATS")
        #expect(publisher.readLine()?.hasPrefix("STATS clients=3 topics=1 ") == true)
        #expect(await server.terminate().status == 0)
    }

    @Test func aClientHoldsAtMostItsShareOfSubscriptions() async throws {
        let server = try Server()
        let client = try server.client()
        let limit = Broker.maximumSubscriptions
        let replies = try await offPool { () -> [String] in
            for index in 0...limit { try client.send("SUB topic\(index)") }
            return (0...limit).map { _ in client.readLine() ?? "<closed>" }
        }
        #expect(replies.dropLast() == (0..<limit).map { "OK SUB topic\($0)" }[...])
        #expect(replies.last == "ERR too many subscriptions (limit \(limit))")
        // Another client is not held to the first one's count, and the first may subscribe again once it let go.
        let other = try server.client()
        try other.send("SUB topic\(limit)")
        #expect(other.readLine() == "OK SUB topic\(limit)")
        try client.send("UNSUB topic0")
        #expect(client.readLine() == "OK UNSUB topic0")
        try client.send("SUB topic\(limit)")
        #expect(client.readLine() == "OK SUB topic\(limit)")
        #expect(await server.terminate().status == 0)
    }

    @Test func aClientIsInAtMostItsShareOfQueueGroupsAndOthersStillJoinTheirs() async throws {
        let server = try Server()
        let client = try server.client()
        let limit = Broker.maximumGroupsPerClient
        let replies = try await offPool { () -> [String] in
            for index in 0...limit { try client.send("QSUB g\(index) jobs") }
            return (0...limit).map { _ in client.readLine() ?? "<closed>" }
        }
        #expect(replies.dropLast() == (0..<limit).map { "OK QSUB g\($0) jobs" }[...])
        #expect(replies.last == "ERR too many groups (limit \(limit))")
        // Another client is not held to the first one's count; the first may join again once it let go.
        let other = try server.client()
        try other.send("QSUB g\(limit) jobs")
        #expect(other.readLine() == "OK QSUB g\(limit) jobs")
        try client.send("STATS")
        #expect(client.readLine()?.contains(" groups=\(limit + 1) ") == true)
        try client.send("UNSUB jobs")
        #expect(client.readLine() == "OK UNSUB jobs")
        try client.send("STATS")
        #expect(client.readLine()?.contains(" groups=1 ") == true, "a group goes with its last client")
        try client.send("QSUB g\(limit) jobs")
        #expect(client.readLine() == "OK QSUB g\(limit) jobs")
        #expect(await server.terminate().status == 0)
    }

    @Test func aGroupNameWithAControlCharacterIsRefusedAsInClusterMode() async throws {
        let server = try Server()
        let client = try server.client()
        try client.send(bytes: Array("QSUB w".utf8) + [0] + Array("x jobs\n".utf8))
        #expect(client.readLine() == #"ERR group "w\0x" cannot be a consumer group: it holds a control character"#)
        try client.send("STATS")
        #expect(client.readLine()?.contains(" groups=0 ") == true)
        #expect(await server.terminate().status == 0)
    }

    @Test func aTopicNameWithAControlCharacterIsRefusedAsInClusterMode() async throws {
        let server = try Server()
        let client = try server.client()
        let refusal = #"ERR topic "a\0b" cannot be a stream: it holds a control character"#
        for command in ["SUB", "PUB", "QSUB workers"] {
            let tail = command == "PUB" ? " hello\n" : "\n"
            try client.send(bytes: Array("\(command) a".utf8) + [0] + Array("b\(tail)".utf8))
            #expect(client.readLine() == refusal, "\(command)")
        }
        try client.send(bytes: Array("SUB bell".utf8) + [7] + Array("\n".utf8))
        #expect(client.readLine() == #"ERR topic "bell\u{07}" cannot be a stream: it holds a control character"#)
        try client.send("STATS")
        #expect(client.readLine()?.hasPrefix("STATS clients=1 topics=0 published=0 ") == true)
        #expect(await server.terminate().status == 0)
    }
}
