/// What a field holds, which decides how it is read and what its value looks like.
public enum FieldKind: String, Sendable, Codable, CaseIterable {
    /// A small non-negative integer (shots, saves…), usually written one digit per comb box.
    case count
    /// A string of digits where leading zeros matter (a jersey or ID number).
    case digits
    /// Printed or written words (athlete, opponent).
    case text
    /// A date written MM DD YY, one digit per comb box.
    case date
    /// A box that is marked or not.
    case checkbox

    /// Written as digits in comb boxes: counts, digit strings and dates.
    public var isWrittenInDigits: Bool { self == .count || self == .digits || self == .date }
}

/// One field of a sheet: where it is and what it holds.
public struct FieldSpec: Sendable, Equatable, Codable {
    /// Unique within its template; dotted names group fields (`q2.saves`, `context.hs`).
    public var id: String
    public var kind: FieldKind
    /// Where the field's box is, in points.
    public var rect: Rect
    /// Number of one-digit boxes splitting `rect` into equal widths.
    public var combs: Int?
    /// Text printed with the field on the blank sheet.
    public var label: String?
    /// Inclusive bounds for counts, written `[min, max]`.
    public var range: [Int]?
    /// Which of the club's known names a text field holds (`"names": "opponent"`): what it is read against.
    public var names: NameKind?

    public init(id: String, kind: FieldKind, rect: Rect, combs: Int? = nil, label: String? = nil, range: [Int]? = nil,
                names: NameKind? = nil) {
        self.id = id; self.kind = kind; self.rect = rect; self.combs = combs; self.label = label; self.range = range
        self.names = names
    }

    /// The comb boxes of this field, or the whole rect when it has none.
    public var boxes: [Rect] {
        guard let combs, combs > 1 else { return [rect] }
        return (0..<combs).map { rect.slice($0, of: combs) }
    }

    /// Where `label` is printed on the blank sheet: its first character's left edge and baseline, in
    /// points. Above the box, or right of a checkbox. `SheetRenderer` prints it there, and
    /// `SheetTemplate.spaceBeside` keeps clear of it.
    public var labelOrigin: Point? {
        guard label != nil else { return nil }
        return kind == .checkbox ? Point(x: rect.maxX + 5, y: rect.maxY - 3) : Point(x: rect.x, y: rect.y - 4)
    }

    public var allowedRange: ClosedRange<Int>? {
        guard let range, range.count == 2, range[0] <= range[1] else { return nil }
        return range[0]...range[1]
    }
}

/// Text printed on the blank sheet that is not a field's own label: column and row headings,
/// instructions.
public struct PrintedLabel: Sendable, Equatable, Codable {
    public var text: String
    /// Left end of the text's baseline, in points.
    public var at: [Double]
    /// Font size in points.
    public var size: Double?

    public init(text: String, at: [Double], size: Double? = nil) {
        self.text = text; self.at = at; self.size = size
    }
}

/// A straight printed line of a form, from one end to the other, in points.
public struct Landmark: Sendable, Equatable, Codable {
    public var from: [Double]
    public var to: [Double]
    public init(from: [Double], to: [Double]) { self.from = from; self.to = to }
}

/// Page size in points.
public struct PageSize: Sendable, Equatable, Codable {
    public var width: Double, height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
}

/// A sheet template, format 1: the one description from which the blank sheet is printed and
/// filled sheets are read. See `Templates/README.md` for the contract.
///
/// Keys this version does not use are ignored when decoding, so later versions of statsheet can add
/// them without breaking older readers.
public struct SheetTemplate: Sendable, Equatable, Codable {
    public static let supportedFormat = 1

    public var format: Int
    public var id: String
    public var version: Int
    public var title: String
    public var page: PageSize
    public var fields: [FieldSpec]
    public var labels: [PrintedLabel]?
    /// Checks a filled sheet must pass (see `RuleParser` for the expression language).
    public var rules: [RuleSpec]?
    /// How a read sheet becomes a game log in the store; nil when it does not.
    public var gameLog: GameLogSpec?
    /// True for a club's own paper, printed elsewhere: it carries none of our corner markers or id mark, so
    /// it is aligned by its `landmarks` and told from other forms by how well they fit. Nil or false: a sheet
    /// printed by `statsheet template render`.
    public var printedElsewhere: Bool?
    /// The form's own printed lines (rules, table and box edges), in points: what a sheet printed elsewhere is
    /// aligned by. Each runs horizontally or vertically.
    public var landmarks: [Landmark]?
    /// The sport the sheet records (`lacrosse`, `hockey`, `soccer`, `basketball`): what keeps one athlete's
    /// games of two sports apart in the report. Nil for a template that does not say.
    public var sport: String?

    /// Whether the paper carries our markers and id mark.
    public var hasMarkers: Bool { printedElsewhere != true }

    public init(format: Int = SheetTemplate.supportedFormat, id: String, version: Int, title: String,
                page: PageSize, fields: [FieldSpec], labels: [PrintedLabel]? = nil, rules: [RuleSpec]? = nil,
                gameLog: GameLogSpec? = nil) {
        self.format = format; self.id = id; self.version = version; self.title = title
        self.page = page; self.fields = fields; self.labels = labels; self.rules = rules; self.gameLog = gameLog
    }

    public func field(_ id: String) -> FieldSpec? { fields.first { $0.id == id } }

    /// The page rectangle, for bounds checks.
    public var pageRect: Rect { Rect(x: 0, y: 0, width: page.width, height: page.height) }

    /// The blank paper to the right of a count field, where a keeper who strikes a number out writes it
    /// again: from the field's right edge to the next field on its row (or the page's margin), at most
    /// `widest` points wide, and from a sixth of the field's height above it to its bottom. Nil for other
    /// kinds, and where the gap is narrower than `narrowest` points (a box score's columns sit too close for
    /// a number between them) or a printed label lies in it.
    public func spaceBeside(_ field: FieldSpec, narrowest: Double = 24, widest: Double = 40, pageMargin: Double = 36) -> Rect? {
        guard field.kind == .count else { return nil }
        let band = Rect(x: field.rect.maxX, y: field.rect.y - field.rect.height / 6,
                        width: page.width - pageMargin - field.rect.maxX, height: field.rect.height * 7 / 6)
        guard band.width > 0 else { return nil }
        let nextField = fields.filter { $0.rect.x >= field.rect.maxX && $0.rect.intersects(band) }.map(\.rect.x).min()
        let width = min(widest, (nextField ?? band.maxX) - field.rect.maxX)
        guard width >= narrowest else { return nil }
        let space = Rect(x: field.rect.maxX, y: band.y, width: width, height: band.height)
        // Printed text's extent from its baseline, size and length, wide enough for any face.
        func text(_ text: String, x: Double, baseline: Double, size: Double = 10) -> Rect {
            Rect(x: x, y: baseline - size, width: 0.7 * size * Double(text.count), height: 1.3 * size)
        }
        let printed = (labels ?? []).filter { $0.at.count == 2 }.map { text($0.text, x: $0.at[0], baseline: $0.at[1], size: $0.size ?? 10) }
            + fields.compactMap { other in
                guard let label = other.label, let at = other.labelOrigin else { return nil }
                return text(label, x: at.x, baseline: at.y)
            }
        return printed.contains { $0.intersects(space) } ? nil : space
    }
}
