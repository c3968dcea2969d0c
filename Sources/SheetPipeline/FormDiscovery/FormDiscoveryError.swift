import OCRKit

/// Why a blank form could not be turned into a draft template. Rendered for the user at the CLI's edge.
public enum FormDiscoveryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No sheet of paper stands out from the background (`detail` says what was seen).
    case noPage(detail: String)
    /// The page has no printed boxes or table cells closed on four sides.
    case noBoxes
    /// Leptonica failed on the image.
    case imaging(ImagingError)
    /// Tesseract failed reading the form's print (to turn it upright and label its boxes).
    case reading(TesseractError)

    public var description: String {
        switch self {
        case .noPage(let detail): "no page found in the image: \(detail)"
        case .noBoxes: "no printed boxes found on the page: a draft needs boxes or table cells closed on four sides by printed lines"
        case .imaging(let error): "image processing failed: \(error)"
        case .reading(let error): "reading the form's print failed: \(error)"
        }
    }
}
