#include "cdecoders.h"
#include "messages.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <tiffio.h>
#include <leptonica/allheaders.h>

enum { KEPT = 8, LENGTH = 240 };

// Per thread: scans decode on several threads at once, and each file's messages belong to it alone.
static _Thread_local char kept[KEPT][LENGTH];
static _Thread_local int count;
// libtiff's errors, apart from its warnings: an error means data it could not read (a strip filled in
// black by Leptonica's reader), so such a page must not be read.
static _Thread_local int data_errors;

void cdecoders_message_add(const char *text) {
    if (count < KEPT) {
        snprintf(kept[count], LENGTH, "%s", text);
        // Libraries end their lines with newlines; the caller prints its own.
        size_t n = strlen(kept[count]);
        while (n > 0 && (kept[count][n - 1] == '\n' || kept[count][n - 1] == '\r')) kept[count][--n] = 0;
    }
    count++;
}

void cdecoders_messages_clear(void) { count = 0; data_errors = 0; }
int cdecoders_data_errors(void) { return data_errors; }
int cdecoders_messages_count(void) { return count; }
const char *cdecoders_message(int index) {
    return index >= 0 && index < count && index < KEPT ? kept[index] : NULL;
}

static void tiff_handler(const char *module, const char *format, va_list args) {
    char text[LENGTH];
    int n = module ? snprintf(text, sizeof text, "%s: ", module) : 0;
    if (n < 0 || n >= (int)sizeof text) n = 0;
    vsnprintf(text + n, sizeof text - (size_t)n, format, args);
    cdecoders_message_add(text);
}

static void tiff_error_handler(const char *module, const char *format, va_list args) {
    data_errors++;
    tiff_handler(module, format, args);
}

static void leptonica_handler(const char *text) { cdecoders_message_add(text); }

static void install(void) {
    TIFFSetWarningHandler(tiff_handler);
    TIFFSetErrorHandler(tiff_error_handler);
    leptSetStderrHandler(leptonica_handler);
    // Leptonica's own error reports ("Error in gifToPix: ...") come here too, through the handler:
    // for formats whose library says nothing (giflib), they are the only reason there is.
    setMsgSeverity(L_SEVERITY_ERROR);
}

void cdecoders_install_message_handlers(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
}
