import Testing
@testable import SheetModel

@Suite struct TemplateMarkTests {
    @Test(arguments: ["lacrosse-goalie", "hockey-goalie", "basketball-box"], [1, 2, 255])
    func markRoundTrips(id: String, version: Int) {
        let bits = TemplateMark.bits(id: id, version: version)
        #expect(bits.count == TemplateMark.bitCount)
        let decoded = TemplateMark.decode(bits)
        #expect(decoded?.idHash == TemplateMark.idHash(id))
        #expect(decoded?.version == version)
    }

    @Test func anySingleFlippedBitIsRejected() {
        let bits = TemplateMark.bits(id: "lacrosse-goalie", version: 1)
        for i in bits.indices {
            var damaged = bits
            damaged[i].toggle()
            #expect(TemplateMark.decode(damaged) == nil, "bit \(i)")
        }
    }

    @Test func blankAndSmudgedStripsAreNotMarks() {
        #expect(TemplateMark.decode([Bool](repeating: false, count: 32)) == nil)
        #expect(TemplateMark.decode([Bool](repeating: true, count: 32)) == nil)
    }

    @Test func frameKeepsMarkBetweenTheTopMarkers() {
        let frame = SheetFrame(page: PageSize(width: 612, height: 792))
        let cells = frame.markCells
        #expect(cells.count == 32)
        #expect(cells[0].x > frame.markers[0].maxX)
        #expect(cells[31].maxX < frame.markers[1].x)
        #expect(abs(cells[0].center.y - frame.markerCenters[0].y) < 1e-9)
    }
}
