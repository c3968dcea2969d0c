extension SheetJudge {
    /// Holds each count no sum vouches for any more to the line numbers no rule checks are held to
    /// (`JudgingPolicy.spentSums`), printed or handwritten.
    ///
    /// A sum (an error rule `a + b + … == c`) vouches for its counts when it holds with each of them shown as
    /// its ink read it. When the judge mends a number to make a sum hold, the sum's one equation is spent
    /// saying which number it wanted: it no longer checks the others. Two misreads in one column, one mended
    /// to absorb the other, then leave the second sure and unflagged; the model of doubt weighs it as if the
    /// sum still checked it, and a writer the reader never met is misread sure. So a count whose every sum
    /// needed a mend is as unchecked as a jersey number, and passes only as sure as one must. A count in a sum
    /// that still fails is flagged by it (`Flagging`); a count a person set, or one shown other than its ink
    /// read it, is left as it is.
    func holdCountsWithOnlySpentSums(_ fields: inout [(id: String, reading: FieldReading)], stillFailing: Set<String>, settled: Set<String>) {
        let line = policy.spentSums
        // By id, not `fieldIndex`: a stored sheet judged again (`rejudge`) need not hold its fields in the template's order.
        let index = Dictionary(uniqueKeysWithValues: fields.enumerated().map { ($1.id, $0) })
        // Each sum a count is in, with the counts of it shown other than their ink read them.
        var sumsOfCount: [String: [(rule: String, mended: [String])]] = [:]
        for sum in rules.sums {
            let counts = sum.counts.filter { index[$0] != nil }
            guard counts.count >= 2 else { continue }
            let mended = counts.filter { fields[index[$0]!].reading.inkValue != nil }
            for id in counts { sumsOfCount[id, default: []].append((sum.rule, mended)) }
        }
        for (id, sums) in sumsOfCount where !settled.contains(id) {
            var reading = fields[index[id]!].reading
            guard reading.inkValue == nil, reading.value != .empty, reading.confidence < line.trusted,
                  !sums.contains(where: { stillFailing.contains($0.rule) || $0.mended.isEmpty }) else { continue }
            // What the reader and the sums made of it stays said (eval counts it as read sure, doubted by the rules).
            if reading.inkConfidence == nil { reading.inkConfidence = reading.confidence }
            reading.confidence = min(reading.confidence, line.earned)
            reading.doubts.append(.noSumVouches(mended: Array(Set(sums.flatMap(\.mended))).sorted()))
            fields[index[id]!].reading = reading
        }
    }
}
