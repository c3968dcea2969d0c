/// Failures of Leptonica image work. Leptonica reports errors only as NULL or non-zero returns (its
/// own messages are silenced), so each case says which operation failed.
public enum ImagingError: Error, Equatable, Sendable, CustomStringConvertible {
    case operationFailed(String)
    case invalidArgument(String)
    case decodeFailed(ImageFormat)
    case encodeFailed(String)

    public var description: String {
        switch self {
        case .operationFailed(let op): "image operation \(op) failed"
        case .invalidArgument(let what): "invalid image argument: \(what)"
        case .decodeFailed(let format): "the \(format.displayName) data could not be decoded"
        case .encodeFailed(let what): "could not encode \(what)"
        }
    }
}

/// Failures of the Tesseract engine.
public enum TesseractError: Error, Equatable, Sendable, CustomStringConvertible {
    case initFailed(language: String, dataPath: String?)
    case recognitionFailed
    case variableRejected(name: String)

    public var description: String {
        switch self {
        case .initFailed(let language, let dataPath):
            "Tesseract could not load language '\(language)' from \(dataPath ?? "its default tessdata folder")"
            + " (is tesseract-ocr-\(language) installed? run 'statsheet doctor')"
        case .recognitionFailed: "Tesseract recognition failed"
        case .variableRejected(let name): "Tesseract rejected the setting '\(name)'"
        }
    }
}

/// Leptonica prints its own error lines to stderr; statsheet reports errors itself, naming the file.
enum LeptonicaMessages {
    static let silenced: Void = { _ = setMsgSeverityNone() }()
}
