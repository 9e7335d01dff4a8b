#ifndef MAINLINE_BACKTRACE_H
#define MAINLINE_BACKTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Capturing another thread's call stack (backtrace.c) and naming the addresses (symbols.c), for `LoopBacktrace`.

/// The most frames one capture records (innermost first, the signal handler's own frames included).
#define MAINLINE_BACKTRACE_MAX_FRAMES 128

/// The signal a capture sends to the thread it reads (SIGRTMIN + 5; backtrace.c says why). Thread-safe.
int mainline_backtrace_signal(void);

/// Installs the capture signal's handler and loads the unwinder, once. Idempotent and thread-safe.
/// Returns 0, or an errno value: EBUSY when another handler already owns the signal (it is left alone).
int mainline_backtrace_prepare(void);

/// Unblocks the capture signal on the calling thread (a thread started from a libdispatch worker inherits a mask that
/// blocks nearly every signal). Returns 0 or an errno value. Thread-safe (each thread has its own mask).
int mainline_backtrace_allow_capture_of_current_thread(void);

/// What `mainline_backtrace_capture` reports besides frames.
typedef enum mainline_backtrace_failure {
    /// The signal is not ours (another handler owns it, or it could not be installed).
    MAINLINE_BACKTRACE_UNSUPPORTED = -1,
    /// The thread no longer exists (tgkill said ESRCH), or another thread now has its kernel id.
    MAINLINE_BACKTRACE_NO_SUCH_THREAD = -2,
    /// The thread did not answer in time (it blocks the signal, or never reached a point where it is delivered), or
    /// another capture held the requester's lock until the deadline.
    MAINLINE_BACKTRACE_TIMED_OUT = -3,
    /// The signal could not be sent for another reason (EAGAIN: the queue of real-time signals is full).
    MAINLINE_BACKTRACE_SEND_FAILED = -4,
} mainline_backtrace_failure;

/// Captures the call stack of the thread whose kernel id is `tid` and whose `pthread_self()` is `pthread`, from another
/// thread. Writes up to `capacity` return addresses, innermost first (the handler's own frames first), into `frames`,
/// and the program counter the thread was interrupted at into `*interrupted_pc` (0 when unknown). The thread's stack,
/// [`stack_low`, `stack_high`) from `mainline_current_thread_stack` on that thread (or 0, 0), bounds a frame-pointer walk
/// where unwinding stops early.
/// Returns the number of frames, or a negative `mainline_backtrace_failure`. Waits at most about `timeout_ns`.
/// Thread-safe; concurrent callers take turns. Never called from a signal handler.
int mainline_backtrace_capture(
    int32_t tid,
    uintptr_t pthread,
    uintptr_t stack_low,
    uintptr_t stack_high,
    int64_t timeout_ns,
    uintptr_t *frames,
    int capacity,
    uintptr_t *interrupted_pc
);

/// The address of the capture's signal handler, so that callers can recognize its frame. Thread-safe.
uintptr_t mainline_backtrace_handler_address(void);

/// The calling thread's stack: its lowest address and the address past its highest (stacks grow down from there).
/// Returns false, with both 0, when unknown. Thread-safe (on the main thread it reads /proc/self/maps).
bool mainline_current_thread_stack(uintptr_t *low, uintptr_t *high);

/// `pthread_self()` as an integer. Thread-safe.
uintptr_t mainline_pthread_self(void);

// Symbols.

/// The loaded image (executable or shared library) holding `address`, from the dynamic linker.
typedef struct mainline_image {
    /// What the image's link-time addresses are shifted by (`l_addr`): runtime address = bias + file address.
    uintptr_t bias;
    /// The image's path as the dynamic linker knows it (valid while the image stays loaded); empty for the executable.
    const char *path;
    /// True for the main executable (read it through /proc/self/exe).
    bool is_main_program;
    /// The nearest exported symbol at or below `address` (`dladdr`), or NULL.
    const char *exported_symbol;
    /// The start of `exported_symbol`, or 0.
    uintptr_t exported_symbol_address;
} mainline_image;

/// Finds the image holding `address`. Returns false when no loaded image holds it. Thread-safe (the dynamic linker
/// locks); never call it from a signal handler.
bool mainline_image_of_address(uintptr_t address, mainline_image *image);

/// The function symbols of one ELF file, sorted by address: its `.symtab` (which executables keep even when they
/// export little), or its `.dynsym` when it was stripped. Immutable once built: lookups are thread-safe.
typedef struct mainline_elf_symbols mainline_elf_symbols;

/// Reads the function symbols of the ELF file at `path`, keeping at most `max_symbols` (when `.symtab` holds more, its
/// `.dynsym` is used instead). Returns NULL when the file cannot be read, is not an ELF file of this machine's class
/// and byte order, or has no symbols. The names stay in a read-only mapping of the file until close.
mainline_elf_symbols *mainline_elf_symbols_open(const char *path, size_t max_symbols);

/// Frees what `mainline_elf_symbols_open` built.
void mainline_elf_symbols_close(mainline_elf_symbols *symbols);

/// Bytes of heap the table holds (its index; the names are a file mapping the kernel can drop).
size_t mainline_elf_symbols_memory(const mainline_elf_symbols *symbols);

/// The function whose code holds `file_address` (an address as linked, before the load bias), or NULL. Sets `*start`
/// to the function's first address. The name is valid until close.
const char *mainline_elf_symbols_lookup(const mainline_elf_symbols *symbols, uint64_t file_address, uint64_t *start);

/// Demangles a Swift symbol with the runtime's `swift_demangle`. Returns a string to free with `free`, or NULL when
/// `name` is not a Swift symbol. Thread-safe.
char *mainline_swift_demangle(const char *name);

#endif
