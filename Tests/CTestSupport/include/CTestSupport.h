#ifndef C_TEST_SUPPORT_H
#define C_TEST_SUPPORT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <unistd.h>

/// pipe2(O_CLOEXEC), which Swift's Glibc module does not export: a pipe no concurrently spawned child can inherit.
static inline int test_support_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

#endif
