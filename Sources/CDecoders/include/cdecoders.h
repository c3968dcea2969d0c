#ifndef STATSHEET_CDECODERS_H
#define STATSHEET_CDECODERS_H

// C helpers OCRKit needs where Swift cannot go: libjpeg reports errors by longjmp (Swift cannot
// setjmp), and libjpeg, libtiff and Leptonica print their messages to stderr unless given C callbacks.
// Every message those libraries would print is kept instead, per thread, so the caller can turn the
// ones that explain a failure into that file's error and log the rest.

#include <stddef.h>
#include <stdint.h>

/// Installs the message handlers of libtiff (warnings and errors) and Leptonica (its direct stderr
/// writes, such as "Bad file: amount too big"). Safe to call more than once and from any thread.
void cdecoders_install_message_handlers(void);

/// Forgets the calling thread's kept messages.
void cdecoders_messages_clear(void);
/// How many messages the calling thread's decoders produced since the last clear (more than are kept).
int cdecoders_messages_count(void);
/// How many errors (not warnings) libtiff reported on the calling thread since the last clear: data it lost.
int cdecoders_data_errors(void);
/// The calling thread's `index`th kept message (0-based), or NULL past the last kept one.
const char *cdecoders_message(int index);

/// Reads a JPEG's frame header: stored size and number of colour components. Returns 0 on success.
int cdecoders_jpeg_header(const uint8_t *data, size_t size, int *width, int *height, int *components);

/// Decodes a JPEG to 8-bit gray at 1/`scale_denom` of its size (1, 2, 4 or 8). Gray and YCbCr images
/// give their luminance; RGB is converted; CMYK and YCCK (Adobe's inverted form too) are composited as
/// ink on white paper. On success returns 0 and a malloc'd `*width × *height` buffer the caller frees;
/// `*warnings` counts libjpeg's warnings (data ending early, corrupt data it skipped). A progressive JPEG of
/// more than 1,000 scans is refused: each scan is a pass over the whole image, and a crafted file of
/// thousands of them would take minutes.
int cdecoders_jpeg_decode_gray(const uint8_t *data, size_t size, int scale_denom,
                               uint8_t **pixels, int *width, int *height, int *warnings);

#endif
