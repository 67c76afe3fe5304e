/* Plugins that are wrong in one way each, for plugin_test: built once per
 * FAULT (a compile definition), each must be refused with its own clear
 * message, exit status 1 and nothing stored.
 *   FAULT_VERSION       built for another stage API version
 *   FAULT_NEXT_STAGE    names a next stage that does not exist
 *   FAULT_EDGE          returns an edge it did not declare (for some packets)
 *   FAULT_CRASH         crashes while it is loaded (a constructor)
 *   FAULT_CREATE        its create() refuses, saying why
 */
#include <signal.h>

#include "pathscope/stage.h"

static uint16_t classify(void *instance, uint32_t worker, struct rte_mbuf *m) {
    (void)instance, (void)worker, (void)m;
#ifdef FAULT_EDGE
    static unsigned seen; /* the 50th packet: after some went their declared way */
    if (++seen == 50) return 5;
#endif
    return PATHSCOPE_EDGE_NEXT;
}

#ifdef FAULT_CREATE
#include <stdio.h>
static void *create(const struct pathscope_stage_env *env, const struct pathscope_config *c,
                    char *error, size_t size) {
    (void)env, (void)c;
    snprintf(error, size, "the frobnicator is not plugged in");
    return NULL;
}
#endif

#ifdef FAULT_CRASH
__attribute__((constructor)) static void crash_at_load(void) { raise(SIGSEGV); }
#endif

#ifdef FAULT_NEXT_STAGE
static const char *const next[] = {"ip6_lookpu", NULL};
#endif
static const struct pathscope_drop_reason drops[] = {{"faulty_drop", "never"}, {NULL, NULL}};

static const struct pathscope_stage stage = {
#ifdef FAULT_VERSION
    .api_version = PATHSCOPE_STAGE_API_VERSION + 98,
#else
    .api_version = PATHSCOPE_STAGE_API_VERSION,
#endif
    .size = sizeof(struct pathscope_stage),
    .name = "faulty",
    .summary = "wrong on purpose",
#ifdef FAULT_NEXT_STAGE
    .next_stages = next,
#endif
    .drops = drops,
#ifdef FAULT_CREATE
    .create = create,
#endif
    .classify = classify,
};

PATHSCOPE_STAGE_DECLARE(stage)
