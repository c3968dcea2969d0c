import CDecoders

/// Failures of Leptonica image work. Leptonica reports errors only as NULL or non-zero returns (its
/// own messages are kept from stderr), so each case says which operation failed.
public enum ImagingError: Error, Equatable, Sendable, CustomStringConvertible {
    case operationFailed(String)
    case invalidArgument(String)
    /// `reason`: what the decoding library said about it, when it said something.
    case decodeFailed(ImageFormat, reason: String?)
    case encodeFailed(String)

    public var description: String {
        switch self {
        case .operationFailed(let op): "image operation \(op) failed"
        case .invalidArgument(let what): "invalid image argument: \(what)"
        case .decodeFailed(let format, let reason):
            "the \(format.displayName) data could not be decoded" + (reason.map { " (\($0))" } ?? "")
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

/// Leptonica, libtiff and libjpeg print their own lines to stderr; statsheet reports errors itself,
/// naming the file. Their messages are kept per thread instead (CDecoders), and taken after each decode.
enum DecoderMessages {
    static let silenced: Void = { cdecoders_install_message_handlers() }()

    /// Runs `body` with the calling thread's kept messages cleared first; returns what the libraries said.
    static func collecting<T>(_ body: () -> T) -> (T, [String]) {
        _ = silenced
        cdecoders_messages_clear()
        let value = body()
        let count = Int(cdecoders_messages_count())
        var lines = (0..<count).compactMap { cdecoders_message(Int32($0)).map { String(cString: $0) } }
        if count > lines.count { lines.append("… \(count - lines.count) more") }
        return (value, lines)
    }
}
