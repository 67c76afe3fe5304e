/* policer: a token-bucket rate limiter, as a pathscope stage.
 *
 * Packets within `rate` packets a second (with bursts of up to `burst`
 * packets) pass; the rest are dropped as police_exceed. `per_flow = false`
 * keeps one bucket per worker (the aggregate); `per_flow = true` keeps
 * `flows` buckets per worker, a packet's chosen by a hash of its addresses
 * and ports, so each flow gets `rate` on its own. Workers keep their own
 * buckets: no cache line is shared between them, and with RSS a flow stays
 * on one worker, so per-flow policing is exact; the aggregate is per worker.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_mbuf.h>

#include "pathscope/stage.h"

struct bucket {
    uint64_t tokens; /* in 1/tsc_hz packets: a packet costs tsc_hz */
    uint64_t last;   /* TSC of the last refill */
};

struct policer {
    const struct pathscope_stage_env *env;
    uint64_t rate, depth; /* packets a second; bucket depth in 1/tsc_hz packets */
    uint32_t mask;        /* per flow: buckets - 1; aggregate: 0 */
    struct bucket *buckets; /* workers x (mask + 1), each worker's on its own lines */
    uint32_t stride;
};

static void policer_destroy(void *p) {
    struct policer *pl = p;
    if (!pl) return;
    free(pl->buckets);
    free(pl);
}

static void *policer_create(const struct pathscope_stage_env *env,
                            const struct pathscope_config *c, char *error, size_t size) {
    struct policer *pl = calloc(1, sizeof *pl);
    if (!pl) return snprintf(error, size, "out of memory"), NULL;
    pl->env = env;
    pl->rate = (uint64_t)pathscope_config_int(c, "rate");
    pl->depth = (uint64_t)pathscope_config_int(c, "burst") * env->tsc_hz;
    uint32_t flows = pathscope_config_int(c, "per_flow") ? (uint32_t)pathscope_config_int(c, "flows") : 1;
    if (flows & (flows - 1)) {
        snprintf(error, size, "flows = %u: give a power of two", flows);
        free(pl);
        return NULL;
    }
    pl->mask = flows - 1;
    /* A worker's buckets start on a cache line of their own. */
    pl->stride = (uint32_t)((flows * sizeof(struct bucket) + 63) / 64 * 64 / sizeof(struct bucket));
    if (posix_memalign((void **)&pl->buckets, 64, (size_t)env->workers * pl->stride * sizeof(struct bucket))) {
        snprintf(error, size, "out of memory for %u x %u buckets", env->workers, flows);
        free(pl);
        return NULL;
    }
    uint64_t now = rte_rdtsc();
    for (size_t i = 0; i < (size_t)env->workers * pl->stride; ++i)
        pl->buckets[i] = (struct bucket){pl->depth, now};
    return pl;
}

static uint32_t flow_hash(const uint8_t *ip) {
    /* CRC32 (SSE4.2) over the addresses and the four bytes after the header
     * (the ports of a UDP or TCP packet without extension headers): a few
     * cycles, where a byte-wise FNV-1a took about 80 a packet here. */
    return rte_hash_crc(ip + 8, 36, 0);
}

static int take(const struct policer *pl, struct bucket *b, uint64_t now) {
    uint64_t elapsed = now - b->last;
    b->last = now;
    /* Refill, capped at the depth; a long gap fills it without the
     * product elapsed * rate (which could overflow). rate >= 1 (its range). */
    uint64_t room = pl->depth - b->tokens;
    if (elapsed >= room / pl->rate + 1) {
        b->tokens = pl->depth;
    } else {
        b->tokens += elapsed * pl->rate;
        if (b->tokens > pl->depth) b->tokens = pl->depth;
    }
    if (b->tokens < pl->env->tsc_hz) return 0;
    b->tokens -= pl->env->tsc_hz;
    return 1;
}

/* One TSC read a burst: the packets of a burst arrived together. */
static uint16_t policer_burst(void *p, uint32_t worker, struct rte_mbuf **pkts, uint16_t n,
                              uint16_t *edges) {
    const struct policer *pl = p;
    struct bucket *mine = pl->buckets + (size_t)worker * pl->stride;
    uint64_t now = rte_rdtsc();
    uint16_t any = 0;
    for (uint16_t i = 0; i < n; ++i) {
        struct bucket *b = mine;
        if (pl->mask)
            b += flow_hash(rte_pktmbuf_mtod_offset(pkts[i], const uint8_t *, PATHSCOPE_L3_OFFSET)) & pl->mask;
        any |= edges[i] = take(pl, b, now) ? PATHSCOPE_EDGE_NEXT : PATHSCOPE_EDGE_DROP(0);
    }
    return any; /* 0: every packet was within the rate */
}

static const struct pathscope_drop_reason policer_drops[] = {
    {"police_exceed", "over the rate: no token in the bucket"},
    {NULL, NULL},
};

static const struct pathscope_config_key policer_config[] = {
    {"rate", PATHSCOPE_CONFIG_INT, 1, 1000000000, 1000000, NULL, "packets a second a bucket lets through"},
    {"burst", PATHSCOPE_CONFIG_INT, 1, 1000000, 64, NULL, "bucket depth, packets"},
    {"per_flow", PATHSCOPE_CONFIG_INT, 0, 1, 0, NULL, "a bucket per flow (true) or one per worker"},
    {"flows", PATHSCOPE_CONFIG_INT, 1, 1 << 20, 4096, NULL, "per_flow: buckets per worker (a power of two)"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static const struct pathscope_stage policer_stage = {
    .api_version = PATHSCOPE_STAGE_API_VERSION,
    .size = sizeof(struct pathscope_stage),
    .name = "policer",
    .summary = "token-bucket rate limiter, one bucket per worker or per flow",
    .drops = policer_drops,
    .config = policer_config,
    .create = policer_create,
    .destroy = policer_destroy,
    .burst = policer_burst,
};

PATHSCOPE_STAGE_DECLARE(policer_stage)
