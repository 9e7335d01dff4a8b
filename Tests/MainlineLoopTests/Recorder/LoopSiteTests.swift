import MainlineLoop
import Testing

@Suite("Loop sites")
struct LoopSiteTests {
    @Test func aSiteReadsBackItsFileLineAndLabel() {
        let site = LoopSite(fileID: "App/Orders.swift", line: 42)
        #expect(site.fileID == "App/Orders.swift")
        #expect(site.line == 42)
        #expect(site.label == nil)
        #expect(site.location == "App/Orders.swift:42")
        #expect(site.description == "App/Orders.swift:42")

        let labelled = LoopSite(label: "refresh", fileID: "App/Orders.swift", line: 7)
        #expect(labelled.label == "refresh")
        #expect(labelled.description == "'refresh' at App/Orders.swift:7")
    }

    @Test func theDefaultsAreTheCallersLine() {
        let line = #line + 1
        let site = LoopSite()
        #expect(site.location == "MainlineLoopTests/LoopSiteTests.swift:\(line)")
    }

    @Test func aLabelOfOneCharacterHasNoAddressAndStillReadsBack() {
        // A one-scalar literal has no pointer representation: the site keeps the scalar itself.
        let site = LoopSite(label: "x", fileID: "A/B.swift", line: 1)
        #expect(site.label == "x")
        let emoji = LoopSite(label: "⏱", fileID: "A/B.swift", line: 1)
        #expect(emoji.label == "⏱")
    }

    @Test func sitesAreEqualWhenTheyReadTheSameWhereverTheirStringsLive() {
        let one = LoopSite(fileID: "App/Orders.swift", line: 42)
        let other = LoopSite(fileID: "App/Orders.swift", line: 42)
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        #expect(one != LoopSite(fileID: "App/Orders.swift", line: 43))
        #expect(one != LoopSite(label: "x", fileID: "App/Orders.swift", line: 42))
    }

    @Test func aSiteIsThreeWordsSoThatItRidesInAJobsSlot() {
        #expect(MemoryLayout<LoopSite>.size == 24)
    }
}
