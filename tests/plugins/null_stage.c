/* A stage that does nothing: every packet on along its main edge. The
 * benchmark of a plugin stage's own cost (bench_plugin) runs it in both
 * shapes: per packet (classify) and, built with NULL_BURST, per burst. */
#include "pathscope/stage.h"

#ifdef NULL_BURST
static void null_burst(void *instance, uint32_t worker, struct rte_mbuf **pkts, uint16_t n,
                       uint16_t *edges) {
    (void)instance, (void)worker, (void)pkts;
    for (uint16_t i = 0; i < n; ++i) edges[i] = PATHSCOPE_EDGE_NEXT;
}
#else
static uint16_t null_classify(void *instance, uint32_t worker, struct rte_mbuf *m) {
    (void)instance, (void)worker, (void)m;
    return PATHSCOPE_EDGE_NEXT;
}
#endif

static const struct pathscope_stage null_stage = {
    .api_version = PATHSCOPE_STAGE_API_VERSION,
    .size = sizeof(struct pathscope_stage),
#ifdef NULL_BURST
#ifndef NULL_NAME
#define NULL_NAME "null_burst"
#endif
    .name = NULL_NAME,
    .summary = "does nothing, per burst",
    .burst = null_burst,
#else
    .name = "null_classify",
    .summary = "does nothing, per packet",
    .classify = null_classify,
#endif
};

PATHSCOPE_STAGE_DECLARE(null_stage)
