/* A stage that uses a next stage of its own: UDP datagrams to port 9 (the
 * test's sink) go straight to udp6_input, skipping the route lookup and
 * local delivery, as early demux does; every other packet goes on. It reads
 * what ip6_input found (struct pathscope_packet): splice it after ip6_input. */
#include <rte_mbuf.h>

#include "pathscope/stage.h"

static void *create(const struct pathscope_stage_env *env, const struct pathscope_config *c,
                    char *error, size_t size) {
    (void)c, (void)error, (void)size;
    return (void *)env;  /* the env lives as long as the instance */
}

static uint16_t classify(void *instance, uint32_t worker, struct rte_mbuf *m) {
    const struct pathscope_packet *p = pathscope_packet_of(m, instance);
    (void)worker;
    if (p->l4_proto != 17) return PATHSCOPE_EDGE_NEXT;
    const uint8_t *udp = rte_pktmbuf_mtod_offset(m, const uint8_t *, PATHSCOPE_L3_OFFSET + p->l4_off);
    return udp[2] == 0 && udp[3] == 9 ? PATHSCOPE_EDGE_STAGE(0) : PATHSCOPE_EDGE_NEXT;
}

PATHSCOPE_DEFINE_BURST(burst, classify)

static const char *const next[] = {"udp6_input", NULL};

static const struct pathscope_stage stage = {
    .api_version = PATHSCOPE_STAGE_API_VERSION,
    .size = sizeof(struct pathscope_stage),
    .name = "steer",
    .summary = "UDP to port 9 straight to udp6_input",
    .next_stages = next,
    .create = create,
    .burst = burst,
};

PATHSCOPE_STAGE_DECLARE(stage)
