#ifndef STATSHEET_COPENBLAS_SHIM_H
#define STATSHEET_COPENBLAS_SHIM_H

// OpenBLAS's CBLAS interface: the digit network's convolutions run as matrix products (im2col + sgemm),
// which is what brings its ~5 million multiply-adds per digit under a millisecond on one core.
#include <cblas.h>

#endif
