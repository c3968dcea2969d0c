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
    /// The club's names, which a handwritten name is read against (`NameReadingModel`); nil when none is known,
    /// and then, as for a field's kind none of whose names is known, the name is read as Tesseract has it,
    /// capped as `handText` says, and flagged as new.
    public var names: NameReadingModel?
    /// The review line (`ScanOptions.minConfidence`), from which the line names are held to follows
    /// (`NamePosterior.line`).
    public var reviewLine = ReviewLine.standard

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
        if decided == .hand {
            let nameLine = NamePosterior.line(reviewLine, numbers: numeric.count)
            // With no names known at all, every name is new: a person confirms it once (`NameReadingModel.weigh`).
            let names = names ?? NameReadingModel(knownNames: [])
            for (k, i) in others.enumerated() where fields[i].field.kind == .text {
                if let kind = fields[i].field.names, readings[i].value != .empty, let characters = text.characters[k],
                   let posterior = names.weigh(characters, kind: kind) {
                    readings[i] = Self.name(readings[i], posterior, kind: kind, line: nameLine)
                } else {
                    Self.handText.apply(to: &readings[i])
                }
            }
        }
        var embeddings: [Int: [[Float]]] = [:], dateInk: [Int: DateInk] = [:]
        for (i, handResult) in zip(numeric, handResults) where decided == .hand {
            if !handResult.digitEmbeddings.isEmpty { embeddings[i] = handResult.digitEmbeddings }
            dateInk[i] = handResult.dateInk
        }
        for (i, handReading) in zip(numeric, hand) {
            if decided == .hand {
                readings[i] = handReading
                if fields[i].field.kind == .digits { Self.handDigitString.apply(to: &readings[i]) }
            } else if readings[i].value == .empty && readings[i].confidence < 50 && handReading.value != .empty {
                // Ink Tesseract read no digit in (a lone 0 in a box score's small boxes, 8 of 1,098 numbers
                // on the printed set): the network's reading is the better guess, doubted, since one
                // reader alone saw it.
                var alone = FieldReading(value: handReading.value, text: handReading.text, confidence: handReading.confidence,
                                         doubts: readings[i].doubts)
                alone.doubt(.handwritingReaderAlone)
                alone.alternatives = handReading.alternatives
                readings[i] = alone
            } else if handReading.value != readings[i].value {
                // Print read by Tesseract, checked by the network, which reads print well too: where the
                // two differ (a sheet judged printed that was not, a smudged digit) the field is doubted.
                readings[i].doubt(.readersDisagree(handwriting: handReading.value))
                readings[i].alternatives = [Alternative(value: readings[i].value, probability: 0.5),
                                            Alternative(value: handReading.value, probability: 0.5)]
            }
        }
        // A cell cut where its printed box is not may hold a box line read as a 1, or a neighbour's
        // ink: whatever was read there, a person looks.
        for i in fields.indices where fields[i].cell.boxMisplaced { readings[i].doubt(.boxMisplaced) }
        let characters = decided == .hand ? Dictionary(uniqueKeysWithValues: text.characters.map { (others[$0.key], $0.value) }) : [:]
        var recognized = RecognizedFields(readings: readings, writing: decided, characters: characters, digitEmbeddings: embeddings,
                                          digitNetwork: handwritten.networkIdentity)
        recognized.dateInk = dateInk
        return recognized
    }

    /// A reader's confidence on handwritten names, dates and digit strings is trusted only from `trusted` up;
    /// under it the field is flagged and its confidence lowered to what such readings earned (`earned`,
    /// measured). Names and dates wait for the names-and-season model (known names, a prior over game days),
    /// jersey numbers for the roster; counts no rule weighs are worth what `ReaderCalibration` says.
    struct HandwritingDoubt {
        let trusted: Double
        let earned: Double
        let kind: ReadingDoubt.UncheckedHandwriting

        /// Under `trusted`, the reading keeps `earned` at most and carries `.uncheckedHandwriting`, which the
        /// check stage sends to a person (`ReadingDoubt.needsAPerson`, `Flagging`).
        func apply(to reading: inout FieldReading) {
            guard reading.value != .empty, reading.confidence < trusted else { return }
            reading.confidence = min(reading.confidence, earned)
            reading.doubts.append(.uncheckedHandwriting(kind))
        }
    }

    /// A handwritten name weighed against the known names of its kind: the likeliest known name when it is
    /// likelier than a new one, its confidence its probability; otherwise the name as read, as sure as
    /// `handText` makes a reading and no surer than the probability that it is new, flagged for a person to
    /// confirm the new name once. What was read stays in `text`.
    static func name(_ reading: FieldReading, _ posterior: NamePosterior, kind: NameKind, line: Double) -> FieldReading {
        if let winner = posterior.winner {
            var named = FieldReading(value: .string(winner.name), text: reading.text, confidence: 100 * winner.probability,
                                     doubts: reading.doubts)
            if KnownName.normalized(reading.text) != KnownName.normalized(winner.name) { named.doubts.append(.readAsKnownName(read: reading.text)) }
            if named.confidence < line {
                named.doubts.append(.nameUnderItsLine(line: line, runnerUp: posterior.runnerUp.name, runnerUpProbability: posterior.runnerUp.probability))
            }
            return named
        }
        var asRead = reading
        handText.apply(to: &asRead)
        asRead.confidence *= posterior.newName
        asRead.doubts.append(.unknownName(kind: kind, known: posterior.knownCount, nearest: posterior.known.first?.name,
                                          nearestProbability: posterior.known.first?.probability ?? 0))
        return asRead
    }

    /// Names and opponents: Tesseract's confidence means less on handwriting than on print. Readings at
    /// 95 or more were all right, those at 70–95 about 4 in 5, nearly all one letter off ("Camerm Lee").
    static let handText = HandwritingDoubt(trusted: 95, earned: 79, kind: .name)

    /// Digit strings (jersey numbers), which no sum checks: those read at 70–95 were right about 9 times in 10.
    /// Mapped through a calibration table instead, the 87 jersey numbers read at 0.92 or more on the calibration
    /// sets (one wrong, at 99.95) earned 0.947 together, and two of the committed box scores' read at 0.92–0.95
    /// passed wrong (15 read 75, 22 read 11): the sets hold too few to place the line the 95 here places.
    static let handDigitString = HandwritingDoubt(trusted: 95, earned: 69, kind: .digitString)

    /// Handwritten dates, weighed by their season (`SeasonPrior`; the scanner applies this after it): a date
    /// only its ink and its season vouch for is trusted from 0.928 up, the line the cube of its probability
    /// placed at 80 before the prior, held, not tuned again. Without it, wrong dates came at 66.5 and 66.6 on
    /// two sets, right under the review line; read at their probability before, one date in eight at 0.70–0.89
    /// was wrong; and the calibration sets hold too few wrong dates to place a line (docs/decisions.md).
    static let handDate = HandwritingDoubt(trusted: 92.8, earned: 69, kind: .date)

    /// Print or hand, from Tesseract's readings of the sheet's numbers: print reads confidently almost
    /// everywhere, handwriting does not. Fields Tesseract saw as empty do not count.
    static func judge(_ readings: [FieldReading], share: Double, confidence: Double) -> Writing {
        judge(readings, unsettled: 0, share: share, confidence: confidence)!
    }

    /// The same judgement with `unsettled` more numbers still to be read: the writing when every way they can
    /// come out (empty, written and sure, written and unsure) gives it, nil when they decide it.
    static func judge(_ readings: [FieldReading], unsettled: Int, share: Double, confidence: Double) -> Writing? {
        let written = readings.filter { !($0.value == .empty && $0.text.isEmpty && $0.confidence >= 90) }
        let sure = Double(written.filter { $0.confidence >= confidence }.count), count = Double(written.count)
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
