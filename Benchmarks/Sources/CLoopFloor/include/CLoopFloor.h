// The C floor: the benchmarks' workloads on a bare libuv loop fed by a lock-free MPSC queue (a Treiber-style stack
// that producers push onto with a CAS and the loop thread takes whole with one exchange, then reverses to FIFO),
// woken by uv_async_send (a push from the loop thread itself, as a job that re-posts itself, starts an idle handle
// instead: no syscall to wake a loop that is awake). What the Swift peers are read against: nothing but libuv and
// two atomics.
//
// One loop at a time: cloopfloor_start() brings the loop thread up, cloopfloor_stop() joins it. Every other call
// needs a started loop. Not re-entrant; the benchmark thread drives it, the producer threads only post.

#ifndef CLOOPFLOOR_H
#define CLOOPFLOOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most producer threads cloopfloor_post_ticks() accepts (one node pool each).
#define CLOOPFLOOR_MAX_PRODUCERS 8

/// Starts the loop thread and returns once its loop runs. Returns 0, or a negative libuv/errno code.
int cloopfloor_start(void);

/// Stops the loop thread (a job that closes the loop's two handles) and joins it; frees the node pools.
void cloopfloor_stop(void);

/// Expects `count` ticks: call before any of them is posted.
void cloopfloor_arm(size_t count);

/// Pushes `count` jobs from producer `producer` (0 ..< CLOOPFLOOR_MAX_PRODUCERS; one thread per index at a time),
/// each of which decrements the armed counter; the last one wakes cloopfloor_wait(). With `malloc_nodes` 0 the
/// nodes come from a per-producer pool grown once (all of a round's nodes are consumed before the next round);
/// otherwise every job is malloc'ed by the producer and freed by the loop thread.
void cloopfloor_post_ticks(size_t producer, size_t count, int malloc_nodes);

/// Blocks until every armed tick has happened.
void cloopfloor_wait(void);

/// Keeps the loop awake with a job that re-posts itself until cloopfloor_keep_awake_stop().
void cloopfloor_keep_awake_start(void);

/// Stops the self-re-posting job and returns once it has run for the last time.
void cloopfloor_keep_awake_stop(void);

/// Posts one job and waits until it ran; returns the ns from just before the post to the job's start.
uint64_t cloopfloor_hand_off(void);

/// CLOCK_MONOTONIC in ns: the clock every hand-off peer is timed with.
uint64_t cloopfloor_now_ns(void);

/// On the loop thread, starts `count` one-shot timers with `uv_timer_start`, the i-th due after `delays_ns[i]`
/// (rounded down to libuv's milliseconds), timing the starts alone; then waits until every timer has fired. Returns the
/// ns the starts took. The timer handles are made (`uv_timer_init`) once, untimed, and kept until cloopfloor_stop(): every call on one
/// started loop passes the same `count` or less. `delays_ns` must stay valid until it returns.
uint64_t cloopfloor_schedule_timers(const int64_t *delays_ns, size_t count);

#ifdef __cplusplus
}
#endif

#endif
