import SheetModel
import Testing

/// What a reviewer types becomes a value of the field's kind, or a reason it cannot.
@Suite struct FieldValueParsingTests {
    @Test(arguments: [
        (FieldKind.count, " 12 ", FieldValue.integer(12)), (.count, "-", .empty), (.count, "", .empty),
        (.digits, "007", .string("007")), (.text, " Lincoln High ", .string("Lincoln High")),
        (.date, "2028-02-29", .string("2028-02-29")), (.checkbox, "x", .boolean(true)), (.checkbox, "no", .boolean(false)),
    ])
    func typedTextBecomesAValue(_ kind: FieldKind, _ typed: String, _ value: FieldValue) throws {
        #expect(try kind.value(parsing: typed).get() == value)
        #expect(kind.accepts(value))
    }

    @Test(arguments: [(FieldKind.count, "seven"), (.count, "-3"), (.count, "1.5"), (.digits, "12a"),
                      (.date, "2026-02-30"), (.date, "11/04/2026"), (.checkbox, "maybe")])
    func nonsenseIsRefusedWithAReason(_ kind: FieldKind, _ typed: String) {
        guard case .failure(let error) = kind.value(parsing: typed) else { Issue.record("\(typed) accepted as a \(kind)"); return }
        #expect(error.message.contains(typed))
    }

    @Test func shapesOfOtherKindsAreNotAccepted() {
        #expect(!FieldKind.count.accepts(.string("7")))
        #expect(!FieldKind.count.accepts(.integer(-1)))
        #expect(!FieldKind.checkbox.accepts(.integer(1)))
        #expect(!FieldKind.date.accepts(.string("2026-13-01")))
        #expect(FieldKind.text.accepts(.empty))
    }
}
