/// The confidence (0–100) under which a field is flagged for a person to settle: scan's and eval's default
/// `--min-confidence`, and the line a sheet's flags are counted against when its own was not stored.
///
/// Set where the held-out writers' wrong numbers all fall under it while under 1% of right ones do
/// (`docs/accuracy.md`, made by `Tools/accuracy-doc.sh`). A sheet keeps the line it was read with
/// (`SheetResult.reviewLine`, the store's `sheets.review_line`), so changing this one changes no stored flag.
public enum ReviewLine {
    public static let standard = 70.0
}
