#include "cdecoders.h"
#include "messages.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

struct error_manager {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    int warnings;
};

// libjpeg's default error_exit calls exit(); this returns to the setjmp in the caller instead.
static void error_exit(j_common_ptr info) {
    char text[JMSG_LENGTH_MAX];
    info->err->format_message(info, text);
    cdecoders_message_add(text);
    longjmp(((struct error_manager *)info->err)->escape, 1);
}

// Warnings (level -1) are counted and kept, never printed; trace messages (levels > 0) are dropped.
static void emit_message(j_common_ptr info, int level) {
    if (level >= 0) return;
    struct error_manager *manager = (struct error_manager *)info->err;
    if (manager->warnings == 0) {
        char text[JMSG_LENGTH_MAX];
        info->err->format_message(info, text);
        cdecoders_message_add(text);
    }
    manager->warnings++;
}

static void output_message(j_common_ptr info) { (void)info; }

enum { MAX_SCANS = 1000 };

// Called as libjpeg reads input; past MAX_SCANS progressive scans the file is given up as hostile.
static void limit_scans(j_common_ptr info) {
    if (!info->is_decompressor || ((j_decompress_ptr)info)->input_scan_number <= MAX_SCANS) return;
    cdecoders_message_add("more than 1,000 progressive scans");
    longjmp(((struct error_manager *)info->err)->escape, 1);
}

static void setup(struct jpeg_decompress_struct *info, struct error_manager *manager) {
    // Zeroed first: if creating the decompressor fails, destroying it must see no stale pointers.
    memset(info, 0, sizeof *info);
    info->err = jpeg_std_error(&manager->base);
    manager->base.error_exit = error_exit;
    manager->base.emit_message = emit_message;
    manager->base.output_message = output_message;
    manager->warnings = 0;
}

int cdecoders_jpeg_header(const uint8_t *data, size_t size, int *width, int *height, int *components) {
    struct jpeg_decompress_struct info;
    struct error_manager manager;
    setup(&info, &manager);
    if (setjmp(manager.escape)) {
        jpeg_destroy_decompress(&info);
        return 1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    *width = (int)info.image_width;
    *height = (int)info.image_height;
    *components = info.num_components;
    jpeg_destroy_decompress(&info);
    return 0;
}

// One CMYK pixel as the luminance of ink on white: each ink multiplies the light left by the others.
static uint8_t gray_from_cmyk(const JSAMPLE *p, int inverted) {
    int c = p[0], m = p[1], y = p[2], k = p[3];
    if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
    // Now each value is the light its ink lets through (255 = no ink).
    int r = c * k / 255, g = m * k / 255, b = y * k / 255;
    return (uint8_t)((r * 77 + g * 150 + b * 29 + 128) >> 8);
}

int cdecoders_jpeg_decode_gray(const uint8_t *data, size_t size, int scale_denom,
                               uint8_t **pixels, int *width, int *height, int *warnings) {
    struct jpeg_decompress_struct info;
    struct error_manager manager;
    // Set after setjmp and read after longjmp: must be volatile.
    uint8_t *volatile out = NULL;
    JSAMPLE *volatile row = NULL;
    struct jpeg_progress_mgr progress = { .progress_monitor = limit_scans };
    setup(&info, &manager);
    if (setjmp(manager.escape)) {
        jpeg_destroy_decompress(&info);
        free(out);
        free(row);
        return 1;
    }
    jpeg_create_decompress(&info);
    info.progress = &progress;
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    int cmyk = info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK;
    // Photoshop and most print software write CMYK with an Adobe marker and store it inverted.
    int inverted = cmyk && info.saw_Adobe_marker;
    info.out_color_space = cmyk ? JCS_CMYK : JCS_GRAYSCALE;
    info.scale_num = 1;
    info.scale_denom = (unsigned int)scale_denom;
    jpeg_start_decompress(&info);
    size_t w = info.output_width, h = info.output_height;
    out = malloc(w * h);
    if (cmyk) row = malloc(w * 4);
    if (!out || (cmyk && !row)) {
        cdecoders_message_add("out of memory for the decoded image");
        longjmp(manager.escape, 1);
    }
    while (info.output_scanline < info.output_height) {
        size_t y = info.output_scanline;
        if (cmyk) {
            JSAMPROW rows[1] = { row };
            jpeg_read_scanlines(&info, rows, 1);
            for (size_t x = 0; x < w; x++) out[y * w + x] = gray_from_cmyk(row + 4 * x, inverted);
        } else {
            JSAMPROW rows[1] = { out + y * w };
            jpeg_read_scanlines(&info, rows, 1);
        }
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    free(row);
    *pixels = out;
    *width = (int)w;
    *height = (int)h;
    *warnings = manager.warnings;
    return 0;
}
