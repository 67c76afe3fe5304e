/* The plugin stage's least work, in a shared library that bench_plugin links
 * as pathscope links DPDK's: the built-in stage of the same work calls these
 * directly (through the PLT, into another object, as a plugin's functions
 * are in another object), so the difference to the plugin stage is what
 * pathscope's plugin mechanism adds. The same three shapes as
 * tests/plugins/null_stage.c, compiled from the same code: a per-packet
 * classifier, that classifier made a burst function by
 * PATHSCOPE_DEFINE_BURST, and a burst function that sends everything on. */
#include "pathscope/stage.h"

static uint16_t null_classify(void *instance, uint32_t worker, struct rte_mbuf *m) {
    (void)instance, (void)worker, (void)m;
    return PATHSCOPE_EDGE_NEXT;
}

PATHSCOPE_DEFINE_BURST(null_define_burst, null_classify)

__attribute__((visibility("default"))) uint16_t shared_classify(void *instance, uint32_t worker,
                                                                struct rte_mbuf *m) {
    return null_classify(instance, worker, m);
}

__attribute__((visibility("default"))) uint16_t shared_define_burst(void *instance, uint32_t worker,
                                                                    struct rte_mbuf **pkts,
                                                                    uint16_t n, uint16_t *edges) {
    return null_define_burst(instance, worker, pkts, n, edges);
}

__attribute__((visibility("default"))) uint16_t shared_burst(void *instance, uint32_t worker,
                                                             struct rte_mbuf **pkts, uint16_t n,
                                                             uint16_t *edges) {
    (void)instance, (void)worker, (void)pkts, (void)n, (void)edges;
    return 0;
}
