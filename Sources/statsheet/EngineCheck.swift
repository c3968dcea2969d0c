import OCRKit

/// What `doctor` learns by starting a Tesseract engine.
struct EngineCheck {
    var tesseractVersion = TesseractEngine.version
    var leptonicaVersion = Leptonica.version
    var imageLibraries = Leptonica.imageLibraries
    var dataPath: String?
    var languages: [String] = []
    var engineError: String?

    static func run() -> EngineCheck {
        var check = EngineCheck()
        do {
            let engine = try TesseractEngine()
            check.dataPath = engine.dataPath
            check.languages = engine.availableLanguages
        } catch {
            check.engineError = "\(error)"
        }
        return check
    }
}
