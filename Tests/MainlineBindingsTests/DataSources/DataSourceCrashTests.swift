import MainlineBindings
import MainlineTesting
import Testing

/// What traps: a path outside a source (as an array index does), and misuse under the default handler in debug
/// builds.
@Suite("Data source and binding traps")
struct DataSourceCrashTests {
    @Test func aPathOutsideAMultiSectionSourceTrapsNamingThePath() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let loop = TestLoop()
                let root = MultiSectionDataSource(children: [ArrayDataSource(["a"], loop: loop)], loop: loop)
                _ = root.item(at: RowPath(section: 1, row: 0))
            }
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(standardError.contains("MultiSectionDataSource has 1 sections; asked for [1, 0]"))
    }

    @Test func addingADataSourceToASecondParentTrapsInDebugBuildsWithTheRule() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let loop = TestLoop()
                let child = ArrayDataSource(["a"], loop: loop)
                let first = MultiSectionDataSource(children: [child], loop: loop)
                _ = MultiRowDataSource(children: [child], loop: loop)
                withExtendedLifetime(first) {}
            }
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(standardError.contains("Mainline misuse [data-source-has-parent]"))
        #expect(standardError.contains("A data source has one parent"))
    }
}
