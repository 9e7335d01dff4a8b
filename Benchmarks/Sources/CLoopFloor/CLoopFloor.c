// _GNU_SOURCE: clock_gettime, CLOCK_MONOTONIC and the pthread types uv.h needs, under any -std.
#define _GNU_SOURCE

#include "CLoopFloor.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <uv.h>

struct node;
typedef void (*job_fn)(struct node *);

/// One job: an intrusive node of the MPSC stack.
struct node {
    struct node *next;
    job_fn run;
};

struct pool {
    struct node *nodes;
    size_t capacity;
};

/// The loop and its queue. A single static instance: the benchmarks run one loop at a time.
static struct {
    uv_loop_t loop;
    uv_async_t wake;
    /// Drains the queue on the next loop iteration without a syscall wake-up: started by a push from the loop
    /// thread itself (a job that re-posts itself), the way an event loop serves work its own jobs queued.
    uv_idle_t again;
    pthread_t thread;
    bool running;
    sem_t ready;

    /// The MPSC stack's top. Producers push with a release CAS; the loop thread takes all with an acquire exchange.
    /// libuv < 1.53 gives uv_async_send no ordering guarantee, so these two atomics alone carry the nodes' contents.
    _Atomic(struct node *) head;

    /// Throughput: written by the benchmark thread before the round's first post (the push's release / the
    /// drain's acquire order it), then only by the loop thread.
    size_t remaining;
    sem_t done;

    struct pool pools[CLOOPFLOOR_MAX_PRODUCERS];

    /// Keep-awake and hand-off.
    atomic_bool awake;
    struct node spinner;
    sem_t spinner_stopped;
    struct node hand_off;
    uint64_t hand_off_ran_at; // written by the loop thread before `done` is posted, read after it is waited on
    struct node stop;

    /// Timer scheduling: handles made once on the loop thread (grown when a round asks for more), the round's
    /// delays, how many timers are still to fire, and how long the starts took.
    uv_timer_t *timers;
    size_t timers_made;
    const int64_t *timer_delays;
    size_t timer_count;
    size_t timers_remaining;
    uint64_t timers_elapsed;
    struct node schedule_timers;
} floor_loop;

uint64_t cloopfloor_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/// Whether the calling thread is the loop thread.
static _Thread_local bool on_loop_thread;

static void drain(void);

static void on_again(uv_idle_t *handle) {
    uv_idle_stop(handle);
    drain();
}

static void push(struct node *n) {
    struct node *top = atomic_load_explicit(&floor_loop.head, memory_order_relaxed);
    do {
        n->next = top;
    } while (!atomic_compare_exchange_weak_explicit(&floor_loop.head, &top, n, memory_order_release,
                                                    memory_order_relaxed));
    // Only the push onto an empty stack arranges a drain: any other found a push that did, and whose drain has not
    // happened yet (a drain empties the stack before it runs anything). From another thread that is a wake-up
    // through uv_async_send; from the loop thread, an idle handle that makes the next poll non-blocking and drains
    // after it (libuv handles may only be touched on the loop thread, which this is).
    if (top != NULL) return;
    if (on_loop_thread)
        uv_idle_start(&floor_loop.again, on_again);
    else
        uv_async_send(&floor_loop.wake);
}

static void on_wake(uv_async_t *handle) {
    (void)handle;
    drain();
}

static void drain(void) {
    struct node *n = atomic_exchange_explicit(&floor_loop.head, NULL, memory_order_acquire);
    struct node *fifo = NULL;
    while (n != NULL) { // LIFO → FIFO
        struct node *next = n->next;
        n->next = fifo;
        fifo = n;
        n = next;
    }
    while (fifo != NULL) {
        struct node *next = fifo->next; // before run: a job may free or re-post its node
        fifo->run(fifo);
        fifo = next;
    }
}

static void tick(struct node *n) {
    (void)n;
    if (--floor_loop.remaining == 0) sem_post(&floor_loop.done);
}

static void tick_and_free(struct node *n) {
    free(n);
    if (--floor_loop.remaining == 0) sem_post(&floor_loop.done);
}

static void spin(struct node *n) {
    if (atomic_load_explicit(&floor_loop.awake, memory_order_relaxed))
        push(n);
    else
        sem_post(&floor_loop.spinner_stopped);
}

static void ran(struct node *n) {
    (void)n;
    floor_loop.hand_off_ran_at = cloopfloor_now_ns();
    sem_post(&floor_loop.done);
}

static void timer_fired(uv_timer_t *timer) {
    (void)timer;
    if (--floor_loop.timers_remaining == 0) sem_post(&floor_loop.done);
}

static void schedule_timers(struct node *n) {
    (void)n;
    size_t count = floor_loop.timer_count;
    if (floor_loop.timers_made < count) {
        // Made once per started loop: growing would need the old handles closed (their close callbacks run by
        // uv_run, which a job running inside it cannot call).
        if (floor_loop.timers_made != 0) abort();
        floor_loop.timers = malloc(count * sizeof *floor_loop.timers);
        if (floor_loop.timers == NULL) abort();
        for (size_t i = 0; i < count; i++) uv_timer_init(&floor_loop.loop, &floor_loop.timers[i]);
        floor_loop.timers_made = count;
    }
    floor_loop.timers_remaining = count;
    uint64_t start = cloopfloor_now_ns();
    for (size_t i = 0; i < count; i++)
        uv_timer_start(&floor_loop.timers[i], timer_fired, (uint64_t)(floor_loop.timer_delays[i] / 1000000), 0);
    floor_loop.timers_elapsed = cloopfloor_now_ns() - start;
}

static void stop_loop(struct node *n) {
    (void)n;
    uv_close((uv_handle_t *)&floor_loop.wake, NULL);
    uv_close((uv_handle_t *)&floor_loop.again, NULL);
    for (size_t i = 0; i < floor_loop.timers_made; i++) uv_close((uv_handle_t *)&floor_loop.timers[i], NULL);
}

static void *loop_thread(void *arg) {
    (void)arg;
    on_loop_thread = true;
    sem_post(&floor_loop.ready);
    uv_run(&floor_loop.loop, UV_RUN_DEFAULT); // returns once the stop job closed both handles
    return NULL;
}

int cloopfloor_start(void) {
    if (floor_loop.running) return -EBUSY;
    atomic_init(&floor_loop.head, NULL);
    atomic_init(&floor_loop.awake, false);
    floor_loop.remaining = 0;
    int rc = uv_loop_init(&floor_loop.loop);
    if (rc != 0) return rc;
    rc = uv_async_init(&floor_loop.loop, &floor_loop.wake, on_wake);
    if (rc != 0) {
        uv_loop_close(&floor_loop.loop);
        return rc;
    }
    uv_idle_init(&floor_loop.loop, &floor_loop.again); // cannot fail: it only links the handle into the loop
    sem_init(&floor_loop.ready, 0, 0);
    sem_init(&floor_loop.done, 0, 0);
    sem_init(&floor_loop.spinner_stopped, 0, 0);
    floor_loop.spinner.run = spin;
    floor_loop.hand_off.run = ran;
    floor_loop.stop.run = stop_loop;
    floor_loop.schedule_timers.run = schedule_timers;
    floor_loop.timers = NULL;
    floor_loop.timers_made = 0;
    rc = pthread_create(&floor_loop.thread, NULL, loop_thread, NULL);
    if (rc != 0) {
        uv_close((uv_handle_t *)&floor_loop.wake, NULL);
        uv_close((uv_handle_t *)&floor_loop.again, NULL);
        uv_run(&floor_loop.loop, UV_RUN_DEFAULT);
        uv_loop_close(&floor_loop.loop);
        return -rc;
    }
    sem_wait(&floor_loop.ready);
    floor_loop.running = true;
    return 0;
}

void cloopfloor_stop(void) {
    if (!floor_loop.running) return;
    push(&floor_loop.stop);
    pthread_join(floor_loop.thread, NULL);
    int rc = uv_loop_close(&floor_loop.loop);
    if (rc != 0) fprintf(stderr, "cloopfloor_stop: uv_loop_close: %s\n", uv_strerror(rc));
    for (size_t i = 0; i < CLOOPFLOOR_MAX_PRODUCERS; i++) {
        free(floor_loop.pools[i].nodes);
        floor_loop.pools[i].nodes = NULL;
        floor_loop.pools[i].capacity = 0;
    }
    sem_destroy(&floor_loop.ready);
    sem_destroy(&floor_loop.done);
    sem_destroy(&floor_loop.spinner_stopped);
    free(floor_loop.timers);
    floor_loop.timers = NULL;
    floor_loop.timers_made = 0;
    floor_loop.running = false;
}

void cloopfloor_arm(size_t count) {
    floor_loop.remaining = count;
}

void cloopfloor_post_ticks(size_t producer, size_t count, int malloc_nodes) {
    if (malloc_nodes) {
        for (size_t i = 0; i < count; i++) {
            struct node *n = malloc(sizeof *n);
            if (n == NULL) abort();
            n->run = tick_and_free;
            push(n);
        }
        return;
    }
    if (producer >= CLOOPFLOOR_MAX_PRODUCERS) abort();
    struct pool *pool = &floor_loop.pools[producer];
    if (pool->capacity < count) { // the previous round's nodes have all run: the pool is free to move
        free(pool->nodes);
        pool->nodes = malloc(count * sizeof *pool->nodes);
        if (pool->nodes == NULL) abort();
        pool->capacity = count;
        for (size_t i = 0; i < count; i++) pool->nodes[i].run = tick;
    }
    for (size_t i = 0; i < count; i++) push(&pool->nodes[i]);
}

void cloopfloor_wait(void) {
    while (sem_wait(&floor_loop.done) != 0 && errno == EINTR) {
    }
}

void cloopfloor_keep_awake_start(void) {
    atomic_store_explicit(&floor_loop.awake, true, memory_order_relaxed);
    push(&floor_loop.spinner);
}

void cloopfloor_keep_awake_stop(void) {
    atomic_store_explicit(&floor_loop.awake, false, memory_order_relaxed);
    while (sem_wait(&floor_loop.spinner_stopped) != 0 && errno == EINTR) {
    }
}

uint64_t cloopfloor_hand_off(void) {
    uint64_t posted_at = cloopfloor_now_ns();
    push(&floor_loop.hand_off);
    cloopfloor_wait();
    return floor_loop.hand_off_ran_at - posted_at;
}

uint64_t cloopfloor_schedule_timers(const int64_t *delays_ns, size_t count) {
    if (count == 0) return 0;
    floor_loop.timer_delays = delays_ns; // the push's release / the drain's acquire order these for the loop thread
    floor_loop.timer_count = count;
    push(&floor_loop.schedule_timers);
    cloopfloor_wait();
    return floor_loop.timers_elapsed;
}
