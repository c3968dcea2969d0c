import CTesseract

extension Image {
    /// The long straight runs of a 1-bit image in one direction: the foreground thickened by `thickening`
    /// pixels across the direction, then opened with a brick `length` pixels long along it. Thickening
    /// first lets a line a few degrees off the axis keep runs as long as the brick (a 5-pixel-thick line
    /// tilted 3° has 95-pixel runs), while text, whose letters leave gaps, and handwriting, whose strokes
    /// are short, go.
    public func longRuns(horizontal: Bool, length: Int, thickening: Int) throws(ImagingError) -> Image {
        guard depth == 1 else { throw .invalidArgument("long runs need a 1-bit image") }
        let across = Int32(max(1, thickening)), along = Int32(max(2, length))
        let thick = try Image(taking: horizontal ? pixDilateBrick(nil, pix, 1, across) : pixDilateBrick(nil, pix, across, 1),
                              operation: "pixDilateBrick")
        return try Image(taking: horizontal ? pixOpenCompBrick(nil, thick.pix, along, 1) : pixOpenCompBrick(nil, thick.pix, 1, along),
                         operation: "pixOpenCompBrick")
    }
}
