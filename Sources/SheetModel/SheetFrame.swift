/// The parts every statsheet sheet prints in the same place relative to its page, whatever its
/// template: four corner markers for alignment and the template mark between the top two.
///
/// The top-left marker is a ring (a square with a square hole), the other three are solid, so the
/// sheet's orientation can be told from the markers alone. The mark's cells are placed in the
/// markers' own frame, so it can be read before the template is known.
public struct SheetFrame: Sendable, Equatable {
    public static let markerSize = 24.0
    /// Distance from each page edge to the marker's outer edge.
    public static let markerInset = 24.0
    /// Side of the ring's hole, relative to the marker.
    public static let ringHoleFraction = 0.5

    public let page: PageSize

    public init(page: PageSize) { self.page = page }

    /// Marker squares in order top-left (the ring), top-right, bottom-right, bottom-left.
    public var markers: [Rect] {
        let s = Self.markerSize, i = Self.markerInset
        return [
            Rect(x: i, y: i, width: s, height: s),
            Rect(x: page.width - i - s, y: i, width: s, height: s),
            Rect(x: page.width - i - s, y: page.height - i - s, width: s, height: s),
            Rect(x: i, y: page.height - i - s, width: s, height: s),
        ]
    }

    public var markerCenters: [Point] { markers.map(\.center) }

    /// The hole of the top-left ring marker.
    public var ringHole: Rect {
        let m = markers[0], hole = Self.markerSize * Self.ringHoleFraction
        return Rect(x: m.center.x - hole / 2, y: m.center.y - hole / 2, width: hole, height: hole)
    }

    /// Width of the frame between marker centres.
    public var frameWidth: Double { markerCenters[1].x - markerCenters[0].x }

    /// The template mark's cells, in frame coordinates (u across from the top-left marker centre to
    /// the top-right one, 0…1; v = 0 on the line through them). `TemplateMark.bitCount` cells of
    /// width 1/48 of the frame, centred between the markers.
    public static func markCellCenterU(_ index: Int) -> Double {
        let pitch = 1.0 / 48.0
        let start = (1.0 - Double(TemplateMark.bitCount) * pitch) / 2
        return start + (Double(index) + 0.5) * pitch
    }

    /// The template mark's cells on this page, in points.
    public var markCells: [Rect] {
        let side = frameWidth / 48.0
        let origin = markerCenters[0]
        return (0..<TemplateMark.bitCount).map { i in
            let cx = origin.x + Self.markCellCenterU(i) * frameWidth
            return Rect(x: cx - side / 2, y: origin.y - side / 2, width: side, height: side)
        }
    }

    /// Areas no field may cover: the markers with a quiet zone, and the template mark.
    public var reservedAreas: [Rect] {
        let quiet = 6.0
        let cells = markCells
        let strip = Rect(x: cells[0].x - quiet, y: cells[0].y - quiet,
                         width: cells[cells.count - 1].maxX - cells[0].x + 2 * quiet, height: cells[0].height + 2 * quiet)
        return markers.map { $0.insetBy(-quiet, -quiet) } + [strip]
    }
}

/// The machine-readable template mark: 32 cells, dark for 1, most significant bit first:
/// a 16-bit hash of the template id, the 8-bit version, and a CRC-8 over those three bytes.
/// The CRC starts at 0xFF, so a blank strip (all 0) or a smudge (all 1) never reads as a mark.
public enum TemplateMark {
    public static let bitCount = 32

    /// FNV-1a of the id's UTF-8, folded to 16 bits.
    public static func idHash(_ id: String) -> UInt16 {
        var h: UInt32 = 2_166_136_261
        for byte in id.utf8 { h = (h ^ UInt32(byte)) &* 16_777_619 }
        return UInt16(truncatingIfNeeded: (h >> 16) ^ (h & 0xFFFF))
    }

    public static func bits(id: String, version: Int) -> [Bool] {
        let hash = idHash(id)
        let bytes = [UInt8(hash >> 8), UInt8(hash & 0xFF), UInt8(truncatingIfNeeded: version)]
        return (bytes + [crc8(bytes)]).flatMap { byte in (0..<8).map { byte & (0x80 >> $0) != 0 } }
    }

    /// The id hash and version, or nil when the CRC does not match.
    /// What a mark says: its template's id hash and version.
    public typealias Read = (idHash: UInt16, version: Int)

    public static func decode(_ bits: [Bool]) -> Read? {
        guard bits.count == bitCount else { return nil }
        let bytes = (0..<4).map { b in (0..<8).reduce(UInt8(0)) { $0 << 1 | (bits[b * 8 + $1] ? 1 : 0) } }
        guard crc8(Array(bytes[0..<3])) == bytes[3] else { return nil }
        return (UInt16(bytes[0]) << 8 | UInt16(bytes[1]), Int(bytes[2]))
    }

    static func crc8(_ bytes: [UInt8]) -> UInt8 {
        var crc: UInt8 = 0xFF
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }
}
