import MainlineLoop
import MainlineTesting
import Testing

// The example of the DocC article "Finding order bugs" (MainlineTesting) and of the README's tour.

/// A profile screen: the user and the feed load at once (two answers due at the same instant), and the title names
/// whose feed it is.
@MainActor
final class ProfileViewModel {
    private(set) var title = "Feed"
    private var user: String?
    private var feed: [String] = []

    init(loop: any Loop = MainLoop.main) {
        loop.schedule(after: .milliseconds(100)) { [weak self] in self?.userLoaded("Ada") }
        loop.schedule(after: .milliseconds(100)) { [weak self] in self?.feedLoaded(["hello"]) }
    }

    private func userLoaded(_ name: String) {
        user = name
        render()
    }

    private func feedLoaded(_ items: [String]) {
        feed = items
        render()
    }

    /// The title from the whole state, whichever answer came last.
    private func render() {
        title = user.map { "\($0)'s feed (\(feed.count))" } ?? "Feed (\(feed.count))"
    }
}

/// The same screen as it was first written: the title is set when the feed arrives, from the user known then.
@MainActor
final class FirstProfileViewModel {
    private(set) var title = "Feed"
    private var user: String?

    init(loop: any Loop) {
        loop.schedule(after: .milliseconds(100)) { [weak self] in self?.user = "Ada" }
        loop.schedule(after: .milliseconds(100)) { [weak self] in self?.feedLoaded(["hello"]) }
    }

    private func feedLoaded(_ items: [String]) {
        title = user.map { "\($0)'s feed (\(items.count))" } ?? "Feed (\(items.count))"
    }
}

@MainActor
@Suite("Finding order bugs: the article's example")
struct FindingOrderBugsExampleTests {
    @Test func theProfileTitleNamesTheUserWhicheverAnswerComesFirst() async {
        await explore(seeds: 0..<100) { _ in
            let loop = TestLoop()
            let model = ProfileViewModel(loop: loop)
            loop.advance(by: .milliseconds(100))
            #expect(model.title == "Ada's feed (1)")
        }
    }

    @Test func theFirstVersionPassesInTheRealLoopsOrderAndExploringFindsItsBug() async throws {
        let fifo = await explore(seeds: 0..<100, strategy: .fifo) { _ in
            let loop = TestLoop()
            let model = FirstProfileViewModel(loop: loop)
            loop.advance(by: .milliseconds(100))
            #expect(model.title == "Ada's feed (1)")
        }
        #expect(fifo.failingSeed == nil)
        var found: ExploreResult?
        await withKnownIssue {
            found = await explore(seeds: 0..<100) { _ in
                let loop = TestLoop()
                let model = FirstProfileViewModel(loop: loop)
                loop.advance(by: .milliseconds(100))
                #expect(model.title == "Ada's feed (1)")
            }
        }
        let line = try #require(found?.replayLine)
        let loop = try TestLoop(replaying: line)
        let model = FirstProfileViewModel(loop: loop)
        await loop.advance(by: .milliseconds(100))
        #expect(model.title == "Feed (1)", "the replayed order is the failing one")
    }
}
