import Foundation
import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import Testing

/// The `post` methods: changes from other threads, applied on the loop in order.
@MainActor
@Suite("DataCache posting")
struct DataCachePostingTests {
    @Test func aPostIsAppliedOnTheLoopNotAtOnce() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        #expect(cache.post(with: Library(user: "ada")))
        #expect(cache.value.user == nil, "not applied synchronously, even on the loop")
        loop.runUntilIdle()
        #expect(cache.value.user == "ada")
        #expect(!loop.hasPendingWork)
    }

    @Test func aHundredIncrementsPostedFromConcurrentThreadsAreAllAppliedOneAfterAnother() async {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        let seen = ObservedValues<Int>()
        let observation = cache.observe { seen.add($0.downloads) }
        // One thread per increment: each posts a read-modify-write of the same counter.
        let accepted = _Locked(0)
        let finished = _Locked(0)
        for _ in 0..<100 {
            Thread.detachNewThread {
                if cache.post({ $0.downloads += 1 }) { accepted.withLock { $0 += 1 } }
                finished.withLock { $0 += 1 }
            }
        }
        await loop.run(until: { finished.withLock { $0 } == 100 && !loop.hasPendingWork })
        #expect(accepted.withLock { $0 } == 100)
        #expect(cache.value.downloads == 100, "no increment lost")
        #expect(seen.values == Array(0...100), "each increment applied to the model the previous one left")
        #expect(!loop.hasPendingWork)
        observation.dispose()
    }

    @Test func postsFromOneThreadAreAppliedInTheOrderTheyWerePosted() async {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        let seen = ObservedValues<Library>()
        let observation = cache.observe { seen.add($0) }
        let done = _Locked(false)
        Thread.detachNewThread {
            cache.post(with: Library(user: "ada"))
            cache.post(populating: \.books, with: [Book(1, "a"), Book(2, "b")])
            cache.post { $0.downloads = $0.books.count }
            cache.post(populating: \.wishlist, with: [Book(3, "c")])
            cache.post(populating: \.books, with: [Book(2, "B")])
            done.withLock { $0 = true }
        }
        await loop.run(until: { done.withLock { $0 } && !loop.hasPendingWork })
        let final = Library(user: "ada", books: [Book(1, "a"), Book(2, "B")], wishlist: [Book(3, "c")], downloads: 2)
        #expect(cache.value == final)
        #expect(seen.values.map(\.downloads) == [0, 0, 0, 2, 2, 2])
        #expect(seen.values.map(\.books.count) == [0, 0, 2, 2, 2, 2])
        observation.dispose()
    }

    @Test func aPostThatChangesNothingNotifiesNoOne() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(books: [Book(1, "a")]), loop: loop)
        var notifications = 0
        let observation = cache.observe { _ in notifications += 1 }
        cache.post(with: Library(books: [Book(1, "a")]))
        cache.post { $0.user = nil }
        cache.post(populating: \.books, with: [Book(1, "a")])
        cache.post(populating: \.wishlist, with: [])
        loop.runUntilIdle()
        #expect(notifications == 1, "only the call at registration")
        observation.dispose()
    }

    @Test func postingAfterTheLoopHasStoppedSaysSoAndAppliesNothing() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        loop.stop()
        loop.runUntilIdle()
        #expect(cache.post(with: Library(user: "ada")) == false)
        #expect(cache.post { $0.downloads = 1 } == false)
        #expect(cache.post(populating: \.books, with: [Book(1, "a")]) == false)
        #expect(cache.value == Library())
    }
}
