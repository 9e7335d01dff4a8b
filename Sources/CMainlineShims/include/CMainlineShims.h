#ifndef MAINLINE_SHIMS_H
#define MAINLINE_SHIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// libdispatch's main-queue SPI, exported by libdispatch.so on Linux. CoreFoundation's run loop drains the
// main queue with exactly these two calls; Mainline's owner mode does the same from a libuv poll handle.

/// The eventfd libdispatch writes to when the main queue has work. Owned by libdispatch: never close it.
int mainline_dispatch_main_queue_fd(void);

/// Runs one snapshot of the main queue. Must be called on the process main thread; not re-entrant.
void mainline_dispatch_drain_main_queue(void);

/// Reads (and so resets) the main queue's eventfd counter. Returns false when nothing was pending.
bool mainline_dispatch_acknowledge_main_queue_wakeup(void);

/// Queues `work(context)` on the dispatch main queue without allocating (`dispatch_async_f`, which Swift's
/// Dispatch overlay does not expose). Thread-safe.
void mainline_dispatch_async_main(void *context, void (*work)(void *context));

/// True on the process main thread (gettid() == getpid()); never cached by the optimizer.
bool mainline_is_main_thread(void);

/// The kernel thread id of the calling thread.
int64_t mainline_thread_id(void);

/// Names the calling thread (Linux keeps at most 15 bytes; pass a name that fits). Returns 0 or an errno value.
int mainline_set_current_thread_name(const char *name);

/// Copies the calling thread's name into `buffer` (at least 16 bytes). Returns 0 or an errno value.
int mainline_get_current_thread_name(char *buffer, size_t size);

/// pipe2(fds, O_CLOEXEC): a pipe that no concurrently spawned child inherits (Swift's Glibc module lacks pipe2).
/// Returns 0, or -1 with errno set.
int mainline_pipe_cloexec(int fds[2]);

/// accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK): a connection no spawned child inherits and no read blocks
/// on (Swift's Glibc module lacks accept4). Returns the descriptor, or -1 with errno set.
int mainline_accept_cloexec_nonblocking(int fd);

/// The user id of the process at the other end of the Unix domain socket `fd` (SO_PEERCRED, whose `struct ucred`
/// Swift's Glibc module does not import). Returns 0 and sets `*uid`, or an errno value.
int mainline_socket_peer_uid(int fd, uint32_t *uid);

/// Bytes the C allocator has handed out and not had back (glibc's `mallinfo2`: in-use heap chunks plus mmapped
/// ones), or -1 where it cannot tell. Thread-safe. For the package's tests of memory given back after a burst.
long long mainline_heap_in_use(void);

/// Whether this build runs under ThreadSanitizer, whose allocator `mainline_heap_in_use()` cannot see (it reads 0).
/// Thread-safe.
/// (Compiled in `shims.c`, which the build instruments as it does Swift code; a header is read by Swift's importer,
/// which is not.)
int mainline_is_thread_sanitized(void);

// The loop whose main-actor code the calling thread is running now. Loop drivers set it around each phase so
// that thread-safe entry points (a lazy event's trigger) can tell "called from my loop's own callback" from
// "called from another thread" without allocating or asking the concurrency runtime.
extern _Thread_local const void *mainline_running_loop_storage;

/// The loop the calling thread is running a phase of, or NULL. Thread-safe (each thread has its own).
static inline const void *mainline_running_loop(void) { return mainline_running_loop_storage; }

/// Makes `loop` the calling thread's running loop and returns the previous one, to restore afterwards.
static inline const void *mainline_exchange_running_loop(const void *loop) {
    const void *previous = mainline_running_loop_storage;
    mainline_running_loop_storage = loop;
    return previous;
}

#endif
