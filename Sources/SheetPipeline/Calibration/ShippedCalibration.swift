import Foundation
import SheetModel

extension ReaderCalibration {
    /// The tables `statsheet eval --fit-calibration` fitted, shipped as a resource beside the executable.
    public static func shipped() throws -> ReaderCalibration {
        guard let url = Bundle.module.url(forResource: "reader-calibration", withExtension: "json") else {
            throw CalibrationError.missing
        }
        do {
            return try JSONDecoder().decode(ReaderCalibration.self, from: Data(contentsOf: url))
        } catch {
            throw CalibrationError.unreadable(url.path, "\(error)")
        }
    }
}

public enum CalibrationError: Error, CustomStringConvertible {
    case missing
    case unreadable(String, String)

    public var description: String {
        switch self {
        case .missing: "reader-calibration.json is missing from the resource bundle beside the statsheet executable"
        case .unreadable(let path, let why): "\(path) is not a calibration table: \(why)"
        }
    }
}
