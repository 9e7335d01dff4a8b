#define _GNU_SOURCE
#include "CMainlineShims.h"

#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

_Thread_local const void *mainline_running_loop_storage = NULL;

// Declared by libdispatch's private headers (queue_private.h); exported by libdispatch.so.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

// Public libdispatch API, declared here because the C target does not see <dispatch/dispatch.h>:
// `dispatch_get_main_queue()` is `&_dispatch_main_q`.
struct dispatch_queue_s;
extern struct dispatch_queue_s _dispatch_main_q;
extern void dispatch_async_f(struct dispatch_queue_s *queue, void *context, void (*work)(void *));

void mainline_dispatch_async_main(void *context, void (*work)(void *context)) {
    dispatch_async_f(&_dispatch_main_q, context, work);
}

int mainline_dispatch_main_queue_fd(void) { return _dispatch_get_main_queue_handle_4CF(); }

void mainline_dispatch_drain_main_queue(void) { _dispatch_main_queue_callback_4CF(0); }

bool mainline_dispatch_acknowledge_main_queue_wakeup(void) {
    // libdispatch never resets its eventfd; a level-triggered poll on it would spin without this read.
    // Reading before draining cannot lose a wake-up: a block enqueued after the read writes again.
    int fd = _dispatch_get_main_queue_handle_4CF();
    struct pollfd pfd = {.fd = fd, .events = POLLIN, .revents = 0};
    if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLIN)) return false;  // never block on the read below
    uint64_t counter = 0;
    ssize_t n;
    do {
        n = read(fd, &counter, sizeof counter);
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof counter && counter > 0;
}

bool mainline_is_main_thread(void) { return (pid_t)syscall(SYS_gettid) == getpid(); }

int64_t mainline_thread_id(void) { return (int64_t)syscall(SYS_gettid); }

// pthread_setname_np/pthread_getname_np need _GNU_SOURCE, which Swift's Glibc module does not define.
int mainline_set_current_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }

int mainline_get_current_thread_name(char *buffer, size_t size) {
    return pthread_getname_np(pthread_self(), buffer, size);
}

int mainline_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int mainline_accept_cloexec_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

// `struct ucred` is declared only under _GNU_SOURCE, which Swift's Glibc module does not define.
int mainline_socket_peer_uid(int fd, uint32_t *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return errno;
    *uid = (uint32_t)credentials.uid;
    return 0;
}

long long mainline_heap_in_use(void) {
#if defined(__GLIBC__)
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
#else
    return -1;
#endif
}

int mainline_is_thread_sanitized(void) {
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
    return 1;
#endif
#endif
#if defined(__SANITIZE_THREAD__)
    return 1;
#endif
    return 0;
}
