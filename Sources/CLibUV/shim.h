#ifndef MAINLINE_CLIBUV_SHIM_H
#define MAINLINE_CLIBUV_SHIM_H

#include <uv.h>

// Swift cannot upcast a `uv_timer_t *` to the `uv_handle_t *` every generic libuv call takes.
// These helpers do the cast C does implicitly.
static inline uv_handle_t *mainline_uv_handle(void *handle) { return (uv_handle_t *)handle; }

#endif
