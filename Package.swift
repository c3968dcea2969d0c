// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way: statsheet (CLI) → SheetPipeline → SheetModel, OCRKit → CTesseract;
// SheetPipeline → DigitNet (the handwritten-digit network; OpenBLAS opened at run time, `OpenBLAS.swift`);
// statsheet → SheetStore → SheetModel, GRDB, swift-crypto (the store never sees images or OCR);
// statsheet → SheetReport → SheetStore (the HTML report: numbers in, one self-contained page out);
// OCRKit → CDecoders (libjpeg, and the decoders' message handlers); OCRKit → CHeif (HEIC/HEIF photos).
// SheetModel knows nothing of C; OCRKit knows nothing of sheets.
let package = Package(
    name: "statsheet",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "statsheet", targets: ["statsheet"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        // Already in the graph through postgres-nio (which resolves 4.x): naming it costs no second build.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3" ..< "5.0.0"),
    ],
    targets: [
        // Tesseract's C API and Leptonica, seen through one shim header.
        .systemLibrary(
            name: "CTesseract",
            pkgConfig: "tesseract",
            providers: [.apt(["libtesseract-dev", "libleptonica-dev", "libpng-dev", "libjpeg-dev", "libtiff-dev"])]
        ),
        // The handwritten-digit network: weights in, probabilities out; no images, no sheets.
        // Weights and metadata are resources; the test vectors beside them are read by the tests only.
        .target(name: "DigitNet", exclude: ["Model/testvectors.json"],
                resources: [.copy("Model/digits-cnn.bin"), .copy("Model/digits-cnn.json")]),
        // Benchmarks (not tests: times are measured, never asserted): the digit network (through the reader's pen
        // widths, hence SheetPipeline), the suggestion search, the weighing against the sums, the review screen.
        .executableTarget(name: "bench", dependencies: ["DigitNet", "OCRKit", "SheetModel", "SheetPipeline", "SheetStore", "ReviewUI"]),
        // C that Swift cannot write: libjpeg decoding (its errors longjmp) and the message handlers of
        // libjpeg, libtiff and Leptonica, which otherwise print to stderr.
        .target(name: "CDecoders",
                linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("tiff"), .linkedLibrary("lept")]),
        // libheif, for HEIC/HEIF photos (Debian's build links x265, GPL: see docs/decisions.md).
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // Owned Swift types over Leptonica images and Tesseract engines; typed errors; no sheet concepts.
        .target(name: "OCRKit", dependencies: ["CTesseract", "CDecoders", "CHeif"]),
        // Templates, fields, readings and results: plain values, no C, no I/O beyond JSON decoding.
        .target(name: "SheetModel"),
        // Load → align → read: the stages that turn an image file into a sheet result.
        .target(
            name: "SheetPipeline",
            dependencies: ["SheetModel", "OCRKit", "DigitNet", .product(name: "Logging", package: "swift-log")],
            // What each reader's confidence is worth, fitted by `statsheet eval --fit-calibration`.
            resources: [.copy("Calibration/reader-calibration.json")]
        ),
        // Sheets, readings, corrections and game logs: the `SheetStore` protocol, its SQLite (embedded) and
        // PostgreSQL (shared server) backends.
        .target(name: "SheetStore", dependencies: [
            "SheetModel", .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // The review screen without the terminal: keys → session (store writes, rules re-run) → state
        // → screen lines. No C, no images' formats: cells arrive as gray pixels from the CLI.
        .target(name: "ReviewUI", dependencies: ["SheetModel", "SheetStore"]),
        // `statsheet report`: the store's games and state → one HTML page with inline SVG charts. No I/O but the
        // store's protocol; the CLI writes the file.
        .target(name: "SheetReport", dependencies: ["SheetModel", "SheetStore"]),
        .executableTarget(
            name: "statsheet",
            dependencies: [
                "SheetPipeline", "SheetModel", "OCRKit", "DigitNet", "SheetStore", "ReviewUI", "SheetReport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "SheetModelTests", dependencies: ["SheetModel"]),
        .testTarget(name: "DigitNetTests", dependencies: ["DigitNet"]),
        // The PostgreSQL test server's address and throw-away databases, for both store test targets.
        .target(name: "StoreTestSupport", dependencies: [.product(name: "PostgresNIO", package: "postgres-nio"),
                                                    .product(name: "Logging", package: "swift-log")],
                path: "Tests/StoreTestSupport"),
        // The conformance suite, run on SQLite files and on databases of a real PostgreSQL server.
        // The v3 and v6 store fixtures are read from their paths (`EarlierStoreTests`), not bundled.
        // GRDB: the tests open SQLite stores as earlier statsheets left them, migrated part of the way.
        .testTarget(name: "SheetStoreTests", dependencies: ["SheetStore", "SheetModel", "StoreTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
                    exclude: ["Fixtures"]),
        .testTarget(name: "ReviewUITests", dependencies: ["ReviewUI", "SheetStore", "SheetModel"]),
        .testTarget(name: "SheetReportTests", dependencies: ["SheetReport", "SheetStore", "SheetModel"]),
        .testTarget(name: "SheetPipelineTests", dependencies: ["SheetPipeline", "SheetModel", "OCRKit", "DigitNet", "CHeif", "CTesseract"]),
        // Drives the built `statsheet` binary end to end; depends on it so `swift test` builds it first. OCRKit
        // decodes the report's screenshot from headless Chromium.
        .testTarget(name: "StatsheetCLITests", dependencies: [
            "statsheet", "SheetStore", "SheetModel", "StoreTestSupport", "OCRKit", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
