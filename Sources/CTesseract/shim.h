#ifndef STATSHEET_CTESSERACT_SHIM_H
#define STATSHEET_CTESSERACT_SHIM_H

// One header for the two C libraries statsheet uses: Tesseract's C API (print OCR) and Leptonica
// (image decoding and image work). Only OCRKit imports this module.
#include <leptonica/allheaders.h>
#include <tesseract/capi.h>

#endif
