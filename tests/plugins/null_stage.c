/* A stage that does nothing: every packet on along its main edge. The
 * benchmark of a plugin stage's own cost (bench_plugin) runs it in three
 * shapes: a per-packet classifier called through its pointer (default), the
 * same classifier made into a burst function with PATHSCOPE_DEFINE_BURST
 * (NULL_DEFINE_BURST), and a burst function written out (NULL_BURST).
 * NULL_NAME renames it (two of one shape in one path). */
#include "pathscope/stage.h"

#ifndef NULL_BURST
static uint16_t null_classify(void *instance, uint32_t worker, struct rte_mbuf *m) {
    (void)instance, (void)worker, (void)m;
    return PATHSCOPE_EDGE_NEXT;
}
#endif

#if defined(NULL_DEFINE_BURST)
PATHSCOPE_DEFINE_BURST(null_burst, null_classify)
#define NULL_SHAPE "per packet, made a burst function"
#elif defined(NULL_BURST)
/* Every packet goes on: returning 0 says so without writing `edges`. */
static uint16_t null_burst(void *instance, uint32_t worker, struct rte_mbuf **pkts, uint16_t n,
                           uint16_t *edges) {
    (void)instance, (void)worker, (void)pkts, (void)n, (void)edges;
    return 0;
}
#define NULL_SHAPE "per burst"
#else
#define NULL_SHAPE "per packet"
#endif

#ifndef NULL_NAME
#if defined(NULL_DEFINE_BURST)
#define NULL_NAME "null_define_burst"
#elif defined(NULL_BURST)
#define NULL_NAME "null_burst"
#else
#define NULL_NAME "null_classify"
#endif
#endif

static const struct pathscope_stage null_stage = {
    .api_version = PATHSCOPE_STAGE_API_VERSION,
    .size = sizeof(struct pathscope_stage),
    .name = NULL_NAME,
    .summary = "does nothing, " NULL_SHAPE,
#if defined(NULL_BURST) || defined(NULL_DEFINE_BURST)
    .burst = null_burst,
#else
    .classify = null_classify,
#endif
};

PATHSCOPE_STAGE_DECLARE(null_stage)
