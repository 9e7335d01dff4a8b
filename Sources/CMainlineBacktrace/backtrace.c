// Capturing the call stack of another thread of this process (`LoopBacktrace.capture(of:timeout:)`).
//
// Linux has no call that reads another thread's registers without ptrace, so the thread reads its own stack: the
// requester sends it a signal with tgkill, and the handler, on that thread, unwinds with glibc's `backtrace()` into a
// buffer this file owns, then publishes the answer through one atomic state word. The requester waits for it, bounded.
//
// The protocol (one state word: generation << 2 | phase):
//   requester (one at a time, `requester_lock`):  IDLE(g-1) or DONE(g-1) -> REQUESTED(g), tgkill, wait
//   handler on the target thread:                  REQUESTED(g) -> WRITING(g) (CAS: exactly one handler wins),
//                                                  write the buffer, -> DONE(g) (release)
//   requester, on DONE(g):                         copy the buffer out (acquire), leave the state at DONE(g)
//   requester, at the deadline:                    REQUESTED(g) -> IDLE(g) (CAS); if the handler had already won,
//                                                  the requester gives up and the next request waits for DONE(g)
// So the buffer is written only by the handler that won the CAS for the current generation, and read only by the
// requester that made it, after DONE. A late handler (its request timed out, or a signal of an older request that
// stayed queued) finds a phase other than REQUESTED, or a generation whose thread is not its own, and returns without
// touching anything. The buffer is static, never freed: a handler that runs after its requester left cannot write into
// memory someone freed. The handler calls no malloc, no locks, nothing but loads, one CAS, gettid, pthread_self and
// `backtrace()` (whose one unsafe step, loading libgcc_s on first use, `mainline_backtrace_prepare` does beforehand;
// afterwards libgcc finds unwind tables with glibc's lock-free `_dl_find_object`), then reads frame pointers within
// the thread's stack when the unwinder stops early.

#define _GNU_SOURCE
#include "CMainlineBacktrace.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

// The handler's atomics must not fall back to a lock (libatomic), which a signal handler could deadlock on.
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
               "the capture handler needs lock-free atomics");

enum {
    PHASE_IDLE = 0,
    PHASE_REQUESTED = 1,
    PHASE_WRITING = 2,
    PHASE_DONE = 3,
    PHASE_MASK = 3,
};

// The request and its answer. `request_state` orders everything else: the requester writes `request_tid` and
// `request_pthread` before publishing REQUESTED (release); the handler writes `answer_*` between winning WRITING and
// publishing DONE (release), and the requester reads them after seeing DONE (acquire).
static _Atomic uint64_t request_state;
static _Atomic int32_t request_tid;
static _Atomic uintptr_t request_pthread;
static _Atomic uintptr_t request_stack_low;
static _Atomic uintptr_t request_stack_high;
static void *answer_frames[MAINLINE_BACKTRACE_MAX_FRAMES];
static int answer_count;
static uintptr_t answer_pc;

// Requesters take turns: one request in flight at a time, so one buffer is enough.
static pthread_mutex_t requester_lock = PTHREAD_MUTEX_INITIALIZER;
// Serializes installing the handler.
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool installed;

// SIGRTMIN + 5, a real-time signal:
// - The standard signals are all spoken for: SIGUSR1/SIGUSR2 belong to applications (and libdispatch's threads block
//   SIGUSR1), SIGPROF to profilers, and the Swift runtime's crash handler uses SIGPROF, SIGUSR1 and SIGUSR2 to pause
//   threads and the fault signals to report crashes.
// - glibc takes the first real-time signals for itself (SIGCANCEL, SIGSETXID); SIGRTMIN is already past them. libuv
//   and libdispatch send none. Some runtimes claim SIGRTMIN itself or the first few after it (.NET's activation
//   injection, some profilers and GC's), so +5 keeps clear of the common ones.
// - A real-time signal is queued, not merged: the requester never sends a second one to a thread while one is still
//   pending there (see `capture_signal_pending`), so a thread that blocks it collects at most one.
// If something else owns the signal anyway, `mainline_backtrace_prepare` leaves it alone and capture reports
// UNSUPPORTED, and every capture checks first that the handler is still ours.
int mainline_backtrace_signal(void) { return SIGRTMIN + 5; }

uintptr_t mainline_pthread_self(void) { return (uintptr_t)pthread_self(); }

// The interrupted thread's program counter, stack pointer and frame pointer, from the signal's context.
typedef struct {
    uintptr_t pc, sp, fp;
} interrupted_registers;

static interrupted_registers registers_of(const void *context) {
    const ucontext_t *uc = (const ucontext_t *)context;
    interrupted_registers registers = {0, 0, 0};
    if (uc == NULL) return registers;
#if defined(__x86_64__)
    registers.pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    registers.sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    registers.fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
#elif defined(__aarch64__)
    registers.pc = (uintptr_t)uc->uc_mcontext.pc;
    registers.sp = (uintptr_t)uc->uc_mcontext.sp;
    registers.fp = (uintptr_t)uc->uc_mcontext.regs[29];
#endif
    return registers;
}

// When the unwinder stops at the interrupted frame itself (a leaf function without unwind information, such as some of
// libswiftCore's), continues along the frame pointers: Swift keeps them, and a frame record is {caller's frame
// pointer, return address}. Only when the interrupted stack pointer lies in the thread's own stack [low, high) (not an
// alternate signal stack), and every read stays in [sp, high), which is mapped; each record must lie above the last,
// so a bad frame pointer (code that uses the register for something else) ends the walk instead of faulting.
// Returns the new count.
static int walk_frame_pointers(void **frames, int count, interrupted_registers registers, uintptr_t low, uintptr_t high) {
    if (registers.sp < low || registers.sp >= high || high - low < 2 * sizeof(uintptr_t)) return count;
    uintptr_t fp = registers.fp;
    while (count < MAINLINE_BACKTRACE_MAX_FRAMES && fp >= registers.sp && fp % sizeof(uintptr_t) == 0 &&
           fp <= high - 2 * sizeof(uintptr_t)) {
        const uintptr_t *record = (const uintptr_t *)fp;
        uintptr_t return_address = record[1];
        if (return_address == 0) break;
        frames[count++] = (void *)return_address;
        if (record[0] <= fp) break;
        fp = record[0];
    }
    return count;
}

// Fills the answer, on the thread asked: the unwinder's frames, then frame pointers if it gave up at the interrupted
// frame.
static void record_answer(const void *context) {
    interrupted_registers registers = registers_of(context);
    int count = backtrace(answer_frames, MAINLINE_BACKTRACE_MAX_FRAMES);
    if (registers.pc != 0 && count > 0 && count < MAINLINE_BACKTRACE_MAX_FRAMES &&
        (uintptr_t)answer_frames[count - 1] == registers.pc) {
        count = walk_frame_pointers(
            answer_frames,
            count,
            registers,
            atomic_load_explicit(&request_stack_low, memory_order_relaxed),
            atomic_load_explicit(&request_stack_high, memory_order_relaxed)
        );
    }
    answer_count = count;
    answer_pc = registers.pc;
}

static void mainline_backtrace_handler(int signo, siginfo_t *info, void *context) {
    (void)signo;
    (void)info;
    int saved_errno = errno;
    uint64_t state = atomic_load_explicit(&request_state, memory_order_acquire);
    // Only the thread asked, and only while the request is open; everything else is a stale signal.
    if ((state & PHASE_MASK) == PHASE_REQUESTED &&
        atomic_load_explicit(&request_tid, memory_order_relaxed) == (int32_t)syscall(SYS_gettid) &&
        atomic_compare_exchange_strong_explicit(
            &request_state,
            &state,
            (state & ~(uint64_t)PHASE_MASK) | PHASE_WRITING,
            memory_order_acq_rel,
            memory_order_relaxed
        )) {
        if ((uintptr_t)pthread_self() == atomic_load_explicit(&request_pthread, memory_order_relaxed)) {
            record_answer(context);
        } else {
            // The kernel id was reused by a thread that is not the one asked for.
            answer_count = -1;
            answer_pc = 0;
        }
        atomic_store_explicit(&request_state, (state & ~(uint64_t)PHASE_MASK) | PHASE_DONE, memory_order_release);
    }
    errno = saved_errno;
}

uintptr_t mainline_backtrace_handler_address(void) { return (uintptr_t)&mainline_backtrace_handler; }

static bool handler_is_ours(const struct sigaction *action) {
    return (action->sa_flags & SA_SIGINFO) && action->sa_sigaction == mainline_backtrace_handler;
}

int mainline_backtrace_prepare(void) {
    if (atomic_load_explicit(&installed, memory_order_acquire)) return 0;
    pthread_mutex_lock(&install_lock);
    int result = 0;
    if (!atomic_load_explicit(&installed, memory_order_relaxed)) {
        // glibc loads libgcc_s (dlopen: locks, malloc) on the first `backtrace()`; do it here, never in the handler.
        void *warm_up[4];
        (void)backtrace(warm_up, 4);
        int signo = mainline_backtrace_signal();
        struct sigaction current;
        memset(&current, 0, sizeof current);
        if (sigaction(signo, NULL, &current) != 0) {
            result = errno;
        } else if (!handler_is_ours(&current) &&
                   ((current.sa_flags & SA_SIGINFO) || (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN))) {
            result = EBUSY;
        } else {
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_sigaction = mainline_backtrace_handler;
            // SA_RESTART: calls the kernel restarts (futex waits without a timeout, reads and writes without one)
            // carry on as if nothing happened. Sleeps, polls and timed waits are never restarted: they return early
            // with EINTR (documented on `LoopBacktrace.capture(of:timeout:)`).
            action.sa_flags = SA_SIGINFO | SA_RESTART;
            // No other asynchronous signal runs on top of the handler; a fault inside it still reaches the crash
            // handler.
            sigfillset(&action.sa_mask);
            sigdelset(&action.sa_mask, SIGSEGV);
            sigdelset(&action.sa_mask, SIGBUS);
            sigdelset(&action.sa_mask, SIGILL);
            sigdelset(&action.sa_mask, SIGFPE);
            sigdelset(&action.sa_mask, SIGTRAP);
            sigdelset(&action.sa_mask, SIGABRT);
            if (sigaction(signo, &action, NULL) != 0) {
                result = errno;
            } else {
                atomic_store_explicit(&installed, true, memory_order_release);
            }
        }
    }
    pthread_mutex_unlock(&install_lock);
    return result;
}

bool mainline_current_thread_stack(uintptr_t *low, uintptr_t *high) {
    *low = 0;
    *high = 0;
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return false;
    void *base = NULL;
    size_t size = 0;
    int rc = pthread_attr_getstack(&attributes, &base, &size);
    pthread_attr_destroy(&attributes);
    if (rc != 0) return false;
    *low = (uintptr_t)base;
    *high = (uintptr_t)base + size;
    return true;
}

int mainline_backtrace_allow_capture_of_current_thread(void) {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, mainline_backtrace_signal());
    return pthread_sigmask(SIG_UNBLOCK, &signals, NULL);
}

static int64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

// How a requester waits: it spins for the first 50 µs (a running thread answers in 10–30 µs; a sleep would cost
// the timer slack, 50 µs, on top of its length), then sleeps 20 µs growing to 500 µs, never past the deadline.
typedef struct {
    int64_t start;
    int64_t deadline;
    unsigned sleeps;
} waiter;

static waiter start_waiting(int64_t deadline) {
    return (waiter){.start = monotonic_ns(), .deadline = deadline, .sleeps = 0};
}

// Waits a little. Returns false once the deadline has passed.
static bool back_off(waiter *w) {
    int64_t now = monotonic_ns();
    if (now >= w->deadline) return false;
    if (now - w->start < 50000) {
        for (int i = 0; i < 16; i++) cpu_relax();
        return true;
    }
    int64_t pause = w->sleeps >= 5 ? 500000 : (int64_t)20000 << w->sleeps;
    w->sleeps++;
    if (pause > w->deadline - now) pause = w->deadline - now;
    struct timespec duration = {.tv_sec = 0, .tv_nsec = (long)pause};
    nanosleep(&duration, NULL);
    return true;
}

static bool parse_hex_mask(const char *text, uint64_t *mask) {
    uint64_t value = 0;
    int digits = 0;
    for (; *text == ' ' || *text == '\t'; text++) {
    }
    for (; digits < 16; text++, digits++) {
        char c = *text;
        int nibble;
        if (c >= '0' && c <= '9') {
            nibble = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            nibble = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            nibble = c - 'A' + 10;
        } else {
            break;
        }
        value = (value << 4) | (uint64_t)nibble;
    }
    *mask = value;
    return digits > 0;
}

// Whether the capture signal is already queued on `tid` (it blocks the signal, or has not run since it was sent):
// /proc/self/task/<tid>/status, line "SigPnd:". Returns 1 when pending, 0 when not or unknown, -1 when the thread is
// gone.
static int capture_signal_pending(int32_t tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? -1 : 0;
    char buffer[4096];
    size_t length = 0;
    ssize_t n;
    while (length < sizeof buffer - 1 && (n = read(fd, buffer + length, sizeof buffer - 1 - length)) != 0) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        length += (size_t)n;
    }
    close(fd);
    buffer[length] = '\0';
    const char *line = strstr(buffer, "\nSigPnd:");
    uint64_t mask;
    if (line == NULL || !parse_hex_mask(line + strlen("\nSigPnd:"), &mask)) return 0;
    int signo = mainline_backtrace_signal();
    return (mask >> (signo - 1)) & 1 ? 1 : 0;
}

// With `requester_lock` held.
static int capture_locked(
    int32_t tid,
    uintptr_t pthread,
    uintptr_t stack_low,
    uintptr_t stack_high,
    int64_t deadline,
    uintptr_t *frames,
    int capacity,
    uintptr_t *interrupted_pc
) {
    // A handler that won an earlier request after its requester gave up may still be writing the buffer.
    uint64_t state;
    waiter writing = start_waiting(deadline);
    while (((state = atomic_load_explicit(&request_state, memory_order_acquire)) & PHASE_MASK) == PHASE_WRITING) {
        if (!back_off(&writing)) return MAINLINE_BACKTRACE_TIMED_OUT;
    }
    uint64_t generation = (state >> 2) + 1;
    uint64_t requested = (generation << 2) | PHASE_REQUESTED;
    uint64_t done = (generation << 2) | PHASE_DONE;
    atomic_store_explicit(&request_tid, tid, memory_order_relaxed);
    atomic_store_explicit(&request_pthread, pthread, memory_order_relaxed);
    atomic_store_explicit(&request_stack_low, stack_low, memory_order_relaxed);
    atomic_store_explicit(&request_stack_high, stack_high, memory_order_relaxed);
    atomic_store_explicit(&request_state, requested, memory_order_release);

    // A signal still queued there answers this request when it is delivered; a second one would only queue up.
    int pending = capture_signal_pending(tid);
    int failure = 0;
    if (pending < 0) {
        failure = MAINLINE_BACKTRACE_NO_SUCH_THREAD;
    } else if (pending == 0 && syscall(SYS_tgkill, getpid(), tid, mainline_backtrace_signal()) != 0) {
        failure = errno == ESRCH ? MAINLINE_BACKTRACE_NO_SUCH_THREAD : MAINLINE_BACKTRACE_SEND_FAILED;
    }
    waiter answer = start_waiting(deadline);
    while (failure == 0) {
        state = atomic_load_explicit(&request_state, memory_order_acquire);
        if (state == done) break;
        if (!back_off(&answer)) failure = MAINLINE_BACKTRACE_TIMED_OUT;
    }
    if (failure != 0) {
        // Close the request. If a handler won it meanwhile, its answer is either complete (use it) or still being
        // written (leave it: the next request waits for DONE before reusing the buffer).
        uint64_t expected = requested;
        if (atomic_compare_exchange_strong_explicit(
                &request_state,
                &expected,
                (generation << 2) | PHASE_IDLE,
                memory_order_acq_rel,
                memory_order_acquire
            ) ||
            expected != done) {
            return failure;
        }
    }
    if (answer_count < 0) return MAINLINE_BACKTRACE_NO_SUCH_THREAD;
    int count = answer_count < capacity ? answer_count : capacity;
    for (int i = 0; i < count; i++) frames[i] = (uintptr_t)answer_frames[i];
    *interrupted_pc = answer_pc;
    return count;
}

int mainline_backtrace_capture(
    int32_t tid,
    uintptr_t pthread,
    uintptr_t stack_low,
    uintptr_t stack_high,
    int64_t timeout_ns,
    uintptr_t *frames,
    int capacity,
    uintptr_t *interrupted_pc
) {
    *interrupted_pc = 0;
    int64_t now = monotonic_ns();
    if (timeout_ns < 0) timeout_ns = 0;
    int64_t deadline = timeout_ns > INT64_MAX - now ? INT64_MAX : now + timeout_ns;
    if (mainline_backtrace_prepare() != 0) return MAINLINE_BACKTRACE_UNSUPPORTED;
    // Someone may have replaced the handler since (a signal registration for the same number, say).
    struct sigaction current;
    if (sigaction(mainline_backtrace_signal(), NULL, &current) != 0 || !handler_is_ours(&current)) {
        return MAINLINE_BACKTRACE_UNSUPPORTED;
    }
    if (tid <= 0) return MAINLINE_BACKTRACE_NO_SUCH_THREAD;
    // A trylock loop rather than a blocking lock, so that waiting for another capture also ends at this deadline.
    waiter turn = start_waiting(deadline);
    while (pthread_mutex_trylock(&requester_lock) != 0) {
        if (!back_off(&turn)) return MAINLINE_BACKTRACE_TIMED_OUT;
    }
    int result = capture_locked(tid, pthread, stack_low, stack_high, deadline, frames, capacity, interrupted_pc);
    pthread_mutex_unlock(&requester_lock);
    return result;
}
