// Tesseract's OpenMP threads make small-cell OCR several times slower, and libgomp reads
// OMP_THREAD_LIMIT only when the library is loaded — before any Swift code runs. So the first thing
// statsheet does is start itself again with the limit set, unless the user has set it.
OpenMPLimit.reexecWithSingleThreadIfNeeded()

/// Inside an async function the async `main()` of `AsyncParsableCommand` is chosen; at top level the
/// compiler picks the synchronous one, which cannot run async subcommands.
func start() async { await Statsheet.main() }
await start()
