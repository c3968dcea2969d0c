#ifndef STATSHEET_CTESSERACT_SHIM_H
#define STATSHEET_CTESSERACT_SHIM_H

// One header for the C libraries statsheet uses: Tesseract's C API (print OCR) and Leptonica
// (image decoding and image work). Only OCRKit imports this module.
#include <leptonica/allheaders.h>
#include <tesseract/capi.h>
// libpng directly, for one job: decoding a colour PNG straight to 8-bit gray. Through Leptonica a
// 300-dpi RGB scan is expanded to 32 bits per pixel and then converted, which took most of a page's time.
#include <png.h>

#endif
