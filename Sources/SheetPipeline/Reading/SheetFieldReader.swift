import DigitNet
import Foundation
import OCRKit
import SheetModel

/// Reads a whole sheet: text and checkboxes with the printed reader (Tesseract), numbers with
/// Tesseract when they are printed — checked against the digit network — and with the digit network
/// when they are handwritten.
public final class SheetFieldReader: FieldRecognizer {
    public let printed: PrintedFieldReader
    public let handwritten: HandwrittenDigitReader
    public var writing: Writing
    /// In `auto`, a sheet is taken as printed when at least this share of its written numbers got a
    /// Tesseract confidence of `printedConfidence` or more. Printed and hand-filled sheets nearly meet
    /// here (docs/decisions.md), so the threshold stays where no handwriting passes as print: a printed
    /// sheet taken for handwriting still reads its numbers right (the network reads print), the other
    /// mistake would not.
    public var printedShare = 0.93
    public var printedConfidence = 90.0
    /// A sheet judged printed is taken as handwritten when the network finds numbers Tesseract saw
    /// empty in at least 3 fields and at least this share of the fields it found written.
    public static let unseenShare = 0.1

    /// In `auto`, how many numbers the network reads at one pen width to tell print from hand (`SameDigitSpread`).
    public var spreadSample = 40

    /// A number the network reads on a printed sheet that Tesseract need not read too: with no doubt, and as sure
    /// as `networkSettles` for each of its digits (a printed date's six digits at 0.998 each make 0.988, which one
    /// line for the whole number had sent to Tesseract on most printed sheets).
    static func settledByNetwork(_ reading: FieldReading) -> Bool {
        let digits = max(1, reading.text.filter(\.isNumber).count)
        return reading.value != .empty && reading.doubts.isEmpty && reading.confidence / 100 >= pow(networkSettles, Double(digits))
    }
    /// The network's probability, per digit, from which a printed number is left to it alone.
    static let networkSettles = 0.99
    /// The fewest numbers Tesseract reads in one stack on a printed sheet.
    static let fewestStacked = 8

    /// Text and checkboxes of hand-filled sheets, read again with the handwriting cleaner's ink threshold:
    /// at the print cleaner's, names and ticks in pencil were invisible — read as empty with confidence 97.
    private let pencilAware: PrintedFieldReader

    public init(printed: PrintedFieldReader, handwritten: HandwrittenDigitReader, writing: Writing = .auto) {
        self.printed = printed
        self.handwritten = handwritten
        self.writing = writing
        self.pencilAware = printed.seeing(inkRatio: HandwritingCleaner().inkRatio)
    }

    public func recognize(_ fields: [(field: FieldSpec, cell: FieldCell)]) throws -> RecognizedFields {
        let numeric = fields.indices.filter { fields[$0].field.kind.isWrittenInDigits }
        let others = fields.indices.filter { !fields[$0].field.kind.isWrittenInDigits }
        let numericFields = numeric.map { fields[$0] }
        // The numbers first: the network reads them all, and how alike its digits of the same value are tells
        // print from hand (`SameDigitSpread`), so the text and boxes are read once, by the reader the sheet needs.
        // On a printed sheet Tesseract then reads only the numbers the network is not sure of (`settledByNetwork`):
        // each number Tesseract reads costs about 2 ms of its LSTM. Only where the digits do not say is every number
        // read by Tesseract, whose confidence on them decides (`judge`).
        var readings = [FieldReading](repeating: FieldReading(value: .empty, text: "", confidence: 0), count: fields.count)
        var decided = writing
        var readForPrint: [HandwrittenDigitReader.FieldResult]?
        /// The first numbers' ink, cleaned for the network's first pass: a handwritten sheet's numbers are read again.
        var sampleInk: [HandwritingCleaner.Ink] = []
        if writing != .hand {
            // The spread is measured on the first `spreadSample` numbers: a box score's 150 have far more pairs than
            // it needs, and on a handwritten sheet this pass at one pen width is read again at two.
            let sample = Array(numericFields.prefix(writing == .auto ? spreadSample : numericFields.count))
            sampleInk = try handwritten.cleanEach(sample)
            var network = try handwritten.readEach(sample, cleaned: sampleInk, quick: true)
            if writing == .auto, let told = SameDigitSpread(network)?.writing { decided = told }
            if decided != .hand {
                network = handwritten.doubtingSmallMarks(network + (try handwritten.readEach(Array(numericFields.dropFirst(network.count)), quick: true)))
                var numbers: PrintedFieldReader.CleanedNumbers
                if decided == .auto {
                    numbers = try printed.cleanNumbers(numericFields)
                    let byLine = try printed.readByLine(numbers.inked, into: &numbers.readings)
                    // Tesseract's readings of handwritten numbers are only this evidence: their second opinions are not
                    // sought once the lines alone prove the sheet handwritten.
                    decided = Self.judge(byLine.readings.compactMap { $0 }, unsettled: byLine.waiting.count,
                                         share: printedShare, confidence: printedConfidence) ?? .auto
                    if decided != .hand {
                        numbers.readings = try printed.settled(byLine)
                        if decided == .auto { decided = Self.judge(numbers.readings.map { $0! }, share: printedShare, confidence: printedConfidence) }
                    }
                } else {
                    // Only the numbers the network does not settle are cleaned for Tesseract (the cleaning of a box
                    // score's 150 cost 30 ms). Tesseract reads a number worse alone than among others (two printed
                    // dates read alone fell to 50 and 64, read right at 90+ in the whole stack): the doubted ones are
                    // read among at least `fewestStacked`, the first settled ones with ink in field order.
                    let settled = numericFields.indices.filter { Self.settledByNetwork(network[$0].reading) }
                    let settledSet = Set(settled)
                    numbers = try printed.cleanNumbers(numericFields, where: { !settledSet.contains($0) })
                    for k in settled where !numbers.inked.isEmpty && numbers.inked.count < Self.fewestStacked {
                        if case .inked(let item) = try printed.cleanNumber(k, numericFields[k].field, numericFields[k].cell) {
                            numbers.inked.append(item)
                        }
                    }
                    numbers.inked.sort { $0.index < $1.index }
                    numbers.readings = try printed.settled(printed.readByLine(numbers.inked, into: &numbers.readings))
                }
                if decided == .print {
                    for (k, i) in numeric.enumerated() {
                        if let read = numbers.readings[k] {
                            readings[i] = read
                        } else {
                            // Settled by the network alone, as sure as Tesseract's print: its runners-up, together under
                            // 1%, are left to the weighing's unlisted share as Tesseract's are, not searched one by one
                            // (a printed box score's weighing took 15 ms with them left out, 74 with them listed).
                            readings[i] = network[k].reading
                            readings[i].alternatives = []
                        }
                    }
                    readForPrint = network
                }
            }
        }
        var handResults = try readForPrint ?? handwritten.readResults(numericFields, cleaned: sampleInk)
        var hand = handResults.map(\.reading)
        // Faint pencil can be invisible to the printed reader's threshold, so a sheet it saw as nearly
        // empty looked printed: when the network finds numbers in several fields Tesseract saw empty,
        // the sheet is handwritten. "Several" is a share as well as a count: a printed box score has
        // 130–180 numbers, and a few of its faint or tiny ones (3–5 measured, under 4%) escape Tesseract.
        if writing == .auto && decided == .print {
            let unseen = zip(numeric, hand).filter { readings[$0.0].value == .empty && $0.1.value != .empty }.count
            let seenByNetwork = hand.filter { $0.value != .empty }.count
            if unseen >= 3 && Double(unseen) >= Self.unseenShare * Double(seenByNetwork) {
                decided = .hand
                handResults = try handwritten.readResults(numericFields, cleaned: sampleInk)
                hand = handResults.map(\.reading)
            }
        }
        let textReader = decided == .hand ? pencilAware : printed
        let text = try textReader.readWithCharacters(others.map { fields[$0] })
        for (i, reading) in zip(others, text.readings) { readings[i] = reading }
        var embeddings: [Int: [[Float]]] = [:], dateInk: [Int: DateInk] = [:]
        for (i, handResult) in zip(numeric, handResults) where decided == .hand {
            if !handResult.digitEmbeddings.isEmpty { embeddings[i] = handResult.digitEmbeddings }
            dateInk[i] = handResult.dateInk
        }
        for (i, handReading) in zip(numeric, hand) {
            if decided == .hand {
                readings[i] = handReading
            } else if readings[i].value == .empty && readings[i].cappedConfidence() < 50 && handReading.value != .empty {
                // Ink Tesseract read no digit in (a lone 0 in a box score's small boxes, 8 of 1,098 numbers
                // on the printed set): the network's reading is the better guess, doubted, since one
                // reader alone saw it.
                // Its doubts are the network's reading's and one reader alone: those of Tesseract's empty reading
                // are no doubts about this value.
                var alone = FieldReading(value: handReading.value, text: handReading.text, confidence: handReading.confidence,
                                         doubts: handReading.doubts)
                alone.doubt(.handwritingReaderAlone)
                alone.alternatives = handReading.alternatives
                readings[i] = alone
            } else if handReading.value != readings[i].value {
                // Print read by Tesseract, checked by the network, which reads print well too: where the
                // two differ (a sheet judged printed that was not, a smudged digit) the field is doubted.
                readings[i].doubt(.readersDisagree(handwriting: handReading.value))
                let share = JudgingPolicy.standard.readers.readersDisagreeShare
                readings[i].alternatives = [Alternative(value: readings[i].value, probability: share),
                                            Alternative(value: handReading.value, probability: share)]
            }
        }
        let characters = decided == .hand ? Dictionary(uniqueKeysWithValues: text.characters.map { (others[$0.key], $0.value) }) : [:]
        var recognized = RecognizedFields(readings: readings, writing: decided, characters: characters, digitEmbeddings: embeddings,
                                          digitNetwork: handwritten.networkIdentity)
        recognized.dateInk = dateInk
        return recognized
    }

    /// Print or hand, from Tesseract's readings of the sheet's numbers: print reads confidently almost
    /// everywhere, handwriting does not. Fields Tesseract saw as empty do not count.
    static func judge(_ readings: [FieldReading], share: Double, confidence: Double) -> Writing {
        judge(readings, unsettled: 0, share: share, confidence: confidence)!
    }

    /// The same judgement with `unsettled` more numbers still to be read: the writing when every way they can
    /// come out (empty, written and sure, written and unsure) gives it, nil when they decide it.
    static func judge(_ readings: [FieldReading], unsettled: Int, share: Double, confidence: Double) -> Writing? {
        let written = readings.filter { !($0.value == .empty && $0.text.isEmpty && $0.cappedConfidence() >= 90) }
        let sure = Double(written.filter { $0.cappedConfidence() >= confidence }.count), count = Double(written.count)
        let more = Double(unsettled)
        // Print if no number is written, or if the sure ones reach the share; both are likeliest for print with
        // every unsettled number written and sure, and for hand with every one written and unsure.
        let canBePrint = written.isEmpty || sure + more >= share * (count + more)
        let canBeHand = count + more > 0 && sure < share * (count + more)
        switch (canBePrint, canBeHand) {
        case (true, false): return .print
        case (false, true): return .hand
        default: return nil
        }
    }
}
