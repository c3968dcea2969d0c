#ifndef STATSHEET_COPENBLAS_SHIM_H
#define STATSHEET_COPENBLAS_SHIM_H

// OpenBLAS's CBLAS interface: the digit network's convolutions run as matrix products (im2col + sgemm),
// which is what brings its ~11 million multiply-adds a pass to about 0.43 ms on one core (two passes a digit).
#include <cblas.h>

#endif
