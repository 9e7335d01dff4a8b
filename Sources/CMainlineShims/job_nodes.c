// The job queue's nodes (see CMainlineShims.h): a per-thread cache in front of a small process-wide pool of chains.
//
// A producer takes a node from its thread's cache; a loop gives each node back as it runs the job, into its own
// thread's cache. A cache is two singly linked lists: `take`, which takes pop from, and `spill`, which gives push
// onto. When `take` runs dry it swaps in `spill` (a loop that posts to itself recycles without a lock), else it takes
// one chain from the pool under `pool_lock`. When `spill` reaches a chain's length it goes to the pool, or is freed when
// the pool is full. So the lock is taken once per chain (256 posts), a steady flood allocates nothing, and what a
// burst grew is freed once the burst has run. A thread's cache goes back to the pool when the thread exits.
//
// Compiled here rather than inline in the header: the build instruments this file for ThreadSanitizer, so the
// happens-before edges of `pool_lock` are seen by it (a header is read by Swift's importer, which is not).

#include "CMainlineShims.h"

#include <pthread.h>
#include <stdlib.h>

enum {
    /// Nodes per chain: a cache's `spill` moves to the pool at this length, and a take gets at most this many.
    chain_length = 256,
    /// Chains the pool keeps: 64 × 256 nodes of 32 bytes, about 0.5 MB (plus malloc's headers).
    pool_chains = 64,
};

struct node_cache {
    mainline_job_node *take;
    mainline_job_node *spill;
    size_t spill_count;
    /// Whether the thread-exit destructor is armed for this thread (see `arm_exit`).
    int armed;
};

static _Thread_local struct node_cache cache;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static mainline_job_node *pool[pool_chains];
static size_t pool_lengths[pool_chains];
static size_t pool_count;
static size_t pool_nodes;

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void free_chain(mainline_job_node *node) {
    while (node != NULL) {
        mainline_job_node *next = node->next;
        free(node);
        node = next;
    }
}

/// Puts a chain of `length` nodes into the pool, or frees it when the pool is full.
static void pool_put(mainline_job_node *chain, size_t length) {
    if (chain == NULL) return;
    pthread_mutex_lock(&pool_lock);
    if (pool_count < pool_chains) {
        pool[pool_count] = chain;
        pool_lengths[pool_count] = length;
        pool_count += 1;
        pool_nodes += length;
        chain = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    free_chain(chain);
}

static size_t chain_length_of(mainline_job_node *node) {
    size_t length = 0;
    for (; node != NULL; node = node->next) length += 1;
    return length;
}

/// At thread exit: the thread's cache goes back to the pool (or is freed).
static void return_cache(void *unused) {
    (void)unused;
    struct node_cache *c = &cache;
    mainline_job_node *take = c->take;
    mainline_job_node *spill = c->spill;
    size_t spill_count = c->spill_count;
    c->take = NULL;
    c->spill = NULL;
    c->spill_count = 0;
    c->armed = 0;  // a later take or give on this thread (another destructor's) arms it again
    pool_put(take, chain_length_of(take));
    pool_put(spill, spill_count);
}

static void make_exit_key(void) { pthread_key_create(&exit_key, return_cache); }

/// Makes sure the thread's cache is given back when the thread exits.
static void arm_exit(struct node_cache *c) {
    if (c->armed) return;
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, c);  // any non-NULL value: glibc runs the destructor only for those
    c->armed = 1;
}

static mainline_job_node *take_slow(struct node_cache *c) {
    mainline_job_node *node = c->spill;
    if (node != NULL) {
        c->take = node->next;
        c->spill = NULL;
        c->spill_count = 0;
        return node;
    }
    arm_exit(c);
    pthread_mutex_lock(&pool_lock);
    if (pool_count > 0) {
        pool_count -= 1;
        node = pool[pool_count];
        pool_nodes -= pool_lengths[pool_count];
    }
    pthread_mutex_unlock(&pool_lock);
    if (node != NULL) {
        c->take = node->next;
        return node;
    }
    node = malloc(sizeof(mainline_job_node));
    if (node == NULL) abort();
    return node;
}

mainline_job_node *mainline_job_node_take(void) {
    struct node_cache *c = &cache;
    mainline_job_node *node = c->take;
    if (node == NULL) return take_slow(c);
    c->take = node->next;
    return node;
}

void mainline_job_node_give(mainline_job_node *node) {
    struct node_cache *c = &cache;
    node->next = c->spill;
    c->spill = node;
    c->spill_count += 1;
    if (c->spill_count == 1) arm_exit(c);
    if (c->spill_count < chain_length) return;
    mainline_job_node *chain = c->spill;
    c->spill = NULL;
    c->spill_count = 0;
    pool_put(chain, chain_length);
}

size_t mainline_job_nodes_pooled(void) {
    pthread_mutex_lock(&pool_lock);
    size_t nodes = pool_nodes;
    pthread_mutex_unlock(&pool_lock);
    return nodes;
}

size_t mainline_job_nodes_pool_limit(void) { return (size_t)pool_chains * chain_length; }
