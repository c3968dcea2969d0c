// Tesseract's OpenMP threads make small-cell OCR several times slower, and libgomp reads
// OMP_THREAD_LIMIT only when the library is loaded — before any Swift code runs. So the first thing
// statsheet does is start itself again with the limit set, unless the user has set it.
OpenMPLimit.reexecWithSingleThreadIfNeeded()
Statsheet.main()
