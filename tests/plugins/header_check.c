/* pathscope/stage.h as an out-of-tree plugin meets it: compiled as C99 and
 * (header_check.cpp) as C++11, with -Wall -Wextra -pedantic and warnings as
 * errors (tests/CMakeLists.txt), every macro used once. */
#include "pathscope/stage.h"

static uint16_t classify(void *instance, uint32_t worker, struct rte_mbuf *m) {
    const struct pathscope_packet *p = pathscope_packet_of(m, (const struct pathscope_stage_env *)instance);
    (void)worker;
    return p->l4_proto == 17 ? PATHSCOPE_EDGE_STAGE(0) : PATHSCOPE_EDGE_DROP(0);
}

PATHSCOPE_DEFINE_BURST(burst, classify)

static void *create(const struct pathscope_stage_env *env, const struct pathscope_config *c,
                    char *error, size_t size) {
    (void)error, (void)size;
    return pathscope_config_int(c, "n") > 0 && pathscope_config_text(c, "t")[0] ? (void *)env : NULL;
}

static const char *const next[] = {"ip6_lookup", NULL};
static const struct pathscope_drop_reason drops[] = {{"check_drop", "a drop"}, {NULL, NULL}};
static const struct pathscope_config_key config[] = {
    {"n", PATHSCOPE_CONFIG_INT, 0, 10, 1, NULL, "a number"},
    {"t", PATHSCOPE_CONFIG_TEXT, 0, 10, 0, "x", "a text"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static const struct pathscope_stage stage = {
    PATHSCOPE_STAGE_API_VERSION, sizeof(struct pathscope_stage), "header_check", "compiles",
    next, drops, config, create, NULL, NULL, burst,
};

PATHSCOPE_STAGE_DECLARE(stage)
