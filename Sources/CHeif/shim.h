#ifndef STATSHEET_CHEIF_SHIM_H
#define STATSHEET_CHEIF_SHIM_H

// libheif's C API, for one job: decoding the primary image of a HEIC/HEIF photo (what phones save by
// default) to gray. Only OCRKit imports this module (and the tests, which write rotated HEIC files
// through libheif's encoder, since heif-enc cannot set irot/imir).
#include <libheif/heif.h>

#endif
