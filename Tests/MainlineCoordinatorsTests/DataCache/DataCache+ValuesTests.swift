import MainlineCoordinators
import MainlineLoop
import MainlineTesting
import Testing

/// `values(skipInitial:)`: the model as an `AsyncSequence`.
@MainActor
@Suite("DataCache values")
struct DataCacheValuesTests {
    // Releasing the cache ends its streams, so these tests collect what a stream holds without waiting for a value
    // that a broken cache would never yield. (The streams conflate: only the newest unconsumed value is kept.)

    @Test func valuesYieldTheCurrentValueFirst() async {
        let loop = TestLoop()
        var cache: DataCache<Library>? = DataCache(value: Library(downloads: 1), loop: loop)
        let stream = cache!.values()
        cache = nil
        var received: [Int] = []
        for await library in stream { received.append(library.downloads) }
        #expect(received == [1], "the current value, then the end of the stream with the cache")
    }

    @Test func valuesYieldEachChangeAndNothingForAnUnchangedModel() async {
        let loop = TestLoop()
        var cache: DataCache<Library>? = DataCache(value: Library(downloads: 1), loop: loop)
        var iterator = cache!.values().makeAsyncIterator()
        cache!.update(\.downloads, with: 2)
        #expect(await iterator.next()?.downloads == 2)
        cache!.update(\.downloads, with: 2)
        cache!.post { $0.downloads = 3 }
        await loop.runUntilIdle()
        #expect(await iterator.next()?.downloads == 3)
        cache!.update(\.downloads, with: 3)
        cache = nil
        #expect(await iterator.next() == nil, "the unchanged model yielded nothing")
    }

    @Test func valuesSkippingTheInitialOneYieldOnlyLaterChanges() async {
        let loop = TestLoop()
        var untouched: DataCache<Library>? = DataCache(value: Library(downloads: 1), loop: loop)
        let silent = untouched!.values(skipInitial: true)
        untouched = nil
        var received: [Int] = []
        for await library in silent { received.append(library.downloads) }
        #expect(received == [], "no change, so nothing")

        var cache: DataCache<Library>? = DataCache(value: Library(downloads: 1), loop: loop)
        var iterator = cache!.values(skipInitial: true).makeAsyncIterator()
        cache!.update(\.downloads, with: 2)
        #expect(await iterator.next()?.downloads == 2)
        cache = nil
        #expect(await iterator.next() == nil)
    }

    @Test func releasingTheCacheHandsOutTheNewestPendingValueThenFinishes() async {
        let loop = TestLoop()
        var cache: DataCache<Library>? = DataCache(value: Library(downloads: 1), loop: loop)
        let values = cache!.values()
        cache!.update(\.downloads, with: 2)
        cache!.update(\.downloads, with: 3)
        cache = nil
        var received: [Int] = []
        for await library in values { received.append(library.downloads) }
        #expect(received == [3], "1 and 2 conflated away; the newest still handed out before the end")
    }

    @Test func releasingTheCacheFinishesAWaitingConsumer() async {
        let loop = TestLoop()
        var cache: DataCache<Library>? = DataCache(value: Library(downloads: 1), loop: loop)
        let values = cache!.values(skipInitial: true)
        let consumer = Task { @MainActor in
            var received: [Int] = []
            for await library in values { received.append(library.downloads) }
            return received
        }
        cache!.update(\.downloads, with: 2)
        await Task.yield()
        cache = nil
        let received = await consumer.value
        #expect(received == [2], "the change (taken, or still pending when the cache went), then the end")
    }

    @Test func cancellingTheConsumerEndsItsObservation() async {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        let stream = cache.values()
        #expect(cache.observable.observerCount == 1)
        let consumer = Task {
            for await _ in stream {}
        }
        consumer.cancel()
        await consumer.value
        await loop.runUntilIdle()
        #expect(cache.observable.observerCount == 0)
    }
}
