import MainlineBindings
import Testing

/// `ViewModelCache.apply(_:)`: the shift table for every change kind.
@Suite("ViewModelCache")
struct ViewModelCacheTests {
    /// A cache holding "s.r" at sections 0 and 1, rows 0...2.
    static func filled() -> ViewModelCache<String> {
        var cache = ViewModelCache<String>()
        for section in 0...1 {
            for row in 0...2 { cache[path(section, row)] = "\(section).\(row)" }
        }
        return cache
    }

    static func contents(_ cache: ViewModelCache<String>) -> [String] {
        cache.paths.map { "\($0.section),\($0.row)=\(cache[$0]!)" }
    }

    static let shiftTable: [(SingleChange, [String])] = [
        (.sectionInserted(1), ["0,0=0.0", "0,1=0.1", "0,2=0.2", "2,0=1.0", "2,1=1.1", "2,2=1.2"]),
        (.sectionDeleted(0), ["0,0=1.0", "0,1=1.1", "0,2=1.2"]),
        (.sectionChanged(1), ["0,0=0.0", "0,1=0.1", "0,2=0.2"]),
        (.rowInserted(path(0, 1)), ["0,0=0.0", "0,2=0.1", "0,3=0.2", "1,0=1.0", "1,1=1.1", "1,2=1.2"]),
        (.rowDeleted(path(0, 1)), ["0,0=0.0", "0,1=0.2", "1,0=1.0", "1,1=1.1", "1,2=1.2"]),
        (.rowChanged(path(1, 2)), ["0,0=0.0", "0,1=0.1", "0,2=0.2", "1,0=1.0", "1,1=1.1"]),
        (
            .rowMoved(from: path(0, 0), to: path(0, 2)),
            ["0,0=0.1", "0,1=0.2", "0,2=0.0", "1,0=1.0", "1,1=1.1", "1,2=1.2"]
        ),
        (
            .rowMoved(from: path(0, 2), to: path(1, 0)),
            ["0,0=0.0", "0,1=0.1", "1,0=0.2", "1,1=1.0", "1,2=1.1", "1,3=1.2"]
        ),
    ]

    @Test(arguments: shiftTable.indices)
    func cachedViewModelsFollowTheirRows(_ index: Int) {
        let (change, expected) = Self.shiftTable[index]
        var cache = Self.filled()
        cache.apply(ChangeSet([change]))
        #expect(Self.contents(cache) == expected, "\(change)")
    }

    @Test func removeAllEmptiesTheCache() {
        var cache = Self.filled()
        #expect(cache.count == 6)
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache[path(0, 0)] == nil)
    }
}
