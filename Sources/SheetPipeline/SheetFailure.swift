import OCRKit

/// Why a sheet was not read, typed from the stage that failed to the edge that puts it in words (the CLI's
/// lines, the JSON, the store's failure record: `SheetResult.error` is `message`).
public enum SheetFailure: Error, Equatable, Sendable {
    /// The file could not be read or decoded as an image or document.
    case load(ImageLoadError)
    /// The sheet was found in the image but could not be aligned to a template (or was refused as a poor fit).
    case alignment(AlignmentError)
    /// An image operation failed on an aligned sheet.
    case imaging(ImagingError)
    /// Tesseract failed on the sheet's print.
    case reading(TesseractError)
    /// A part with no typed errors failed: its own description.
    case other(String)

    /// The stage that failed, for counting failures by kind (`scan`'s summary).
    public enum Stage: String, Sendable, CaseIterable {
        case load, alignment, reading
    }

    public var stage: Stage {
        switch self {
        case .load: .load
        case .alignment: .alignment
        case .imaging, .reading, .other: .reading
        }
    }

    /// The failure in words, for people.
    public var message: String {
        switch self {
        case .load(let error): error.message
        case .alignment(let error): error.message
        case .imaging(let error): error.description
        case .reading(let error): error.description
        case .other(let description): description
        }
    }

    /// Any error of the reading stages, typed where its kind is known.
    init(_ error: any Error) {
        switch error {
        case let error as SheetFailure: self = error
        case let error as AlignmentError: self = .alignment(error)
        case let error as ImagingError: self = .imaging(error)
        case let error as TesseractError: self = .reading(error)
        case let error as ImageLoadFailure: self = .load(error.error)
        default: self = .other("\(error)")
        }
    }
}
