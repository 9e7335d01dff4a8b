import MainlineCoordinators
import MainlineLoop
import MainlineObservables
import MainlineTesting
import Testing

/// FuturedKit's `DataCache`: reading, observing and updating on the main actor (spec/coordinators-and-bindings.md).
@MainActor
@Suite("DataCache")
struct DataCacheTests {
    @Test func theCacheHoldsItsInitialValueAndObserversGetItAtOnce() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(user: "ada"), loop: loop)
        let seen = ObservedValues<String?>()
        let observation = cache.observe { seen.add($0.user) }
        #expect(cache.value.user == "ada")
        #expect(seen.values == ["ada"])
        #expect(cache.loop === loop)
        observation.dispose()
    }

    @Test func updatingWithAnEqualModelStoresNothingAndNotifiesNoOne() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(user: "ada"), loop: loop)
        let seen = ObservedValues<String?>()
        let observation = cache.observe { seen.add($0.user) }
        cache.update(with: Library(user: "ada"))
        cache.update(with: Library(user: "grace"))
        cache.update(with: Library(user: "grace"))
        #expect(seen.values == ["ada", "grace"])
        #expect(cache.value == Library(user: "grace"))
        observation.dispose()
    }

    @Test func updatingAPropertyToTheValueItHasNotifiesNoOne() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(user: "ada"), loop: loop)
        let seen = ObservedValues<Library>()
        let observation = cache.observe { seen.add($0) }
        cache.update(\.user, with: "ada")
        cache.update(\.downloads, with: 0)
        cache.update(\.downloads, with: 3)
        cache.update(\.downloads, with: 3)
        cache.update(\.user, with: nil)
        #expect(seen.values.map(\.downloads) == [0, 3, 3])
        #expect(seen.values.map(\.user) == ["ada", "ada", nil])
        observation.dispose()
    }

    @Test func aTransformThatSetsSeveralPropertiesNotifiesOnceAndOneThatChangesNothingNotifiesNoOne() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        let seen = ObservedValues<Library>()
        let observation = cache.observe { seen.add($0) }
        cache.update {
            $0.user = "ada"
            $0.downloads += 1
        }
        cache.update { $0.downloads += 0 }
        #expect(seen.values == [Library(), Library(user: "ada", downloads: 1)])
        observation.dispose()
    }

    @Test func theObservableIsTheCacheSeenAsAnInitializedObservable() {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        let observable: InitializedObservable<Library> = cache.observable
        let seen = ObservedValues<Int>()
        let observation = observable.observe { seen.add($0.downloads) }
        cache.update(\.downloads, with: 1)
        cache.update(\.downloads, with: 1)
        #expect(seen.values == [0, 1])
        #expect(observable.current == cache.value)
        #expect(observable.observerCount == 1)
        observation.dispose()
        loop.runUntilIdle()
        #expect(observable.observerCount == 0)
    }

    @Test func awaitingAnUpdateFromAnotherTaskHopsOntoTheMainActorAsFuturedKitCallersExpect() async {
        let loop = TestLoop()
        let cache = DataCache(value: Library(), loop: loop)
        await Task.detached {
            await cache.update(with: Library(user: "ada"))
            await cache.populate(\.books, with: [Book(1, "a")])
        }.value
        #expect(cache.value == Library(user: "ada", books: [Book(1, "a")]))
    }
}
