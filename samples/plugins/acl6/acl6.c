/* acl6: an IPv6 5-tuple access list on DPDK's rte_acl, as a pathscope stage.
 *
 * Rules, one a line (from the stage's `rules` and the file `rules_file`),
 * first match wins:
 *     deny|permit [src PREFIX] [dst PREFIX] [proto udp|tcp|icmp6|N] [sport A[-B]] [dport A[-B]]
 * A field left out matches anything. `generate = N` adds N rules that match
 * nothing the generator sends (sources in fd00::/8), to try the classifier at
 * the size of a real rule set. Denied packets are dropped as acl_deny; a
 * packet no rule matches passes, or is dropped as acl_default when
 * `default_deny = true`. Splice it after ip6_input or later: it reads the
 * upper-layer protocol and offset ip6_input found (struct pathscope_packet).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_mbuf.h>

#include "pathscope/stage.h"

#include "acl6_rules.h"

enum { DROP_DENY, DROP_DEFAULT };

/* The 5-tuple as rte_acl reads it: the first field one byte, then groups of
 * four (rte_acl_field_def's rule). Addresses and ports in network order. */
struct acl6_key {
    uint8_t proto;
    uint8_t pad[3];
    uint8_t src[16];
    uint8_t dst[16];
    uint16_t sport, dport;
};

enum { F_PROTO, F_SRC0, F_DST0 = F_SRC0 + 4, F_SPORT = F_DST0 + 4, F_DPORT, F_COUNT };

RTE_ACL_RULE_DEF(acl6_rule, F_COUNT);

struct acl6 {
    const struct pathscope_stage_env *env;
    struct rte_acl_ctx *ctx; /* NULL: no rules */
    uint8_t *deny;           /* by rule number (rte_acl's userdata, from 1) */
    int default_deny;
};

static void field_defs(struct rte_acl_field_def *d) {
    memset(d, 0, sizeof(struct rte_acl_field_def) * F_COUNT);
    d[F_PROTO] = (struct rte_acl_field_def){RTE_ACL_FIELD_TYPE_BITMASK, 1, F_PROTO, 0, 0};
    for (int k = 0; k < 4; ++k) {
        d[F_SRC0 + k] = (struct rte_acl_field_def){RTE_ACL_FIELD_TYPE_MASK, 4, (uint8_t)(F_SRC0 + k),
                                                   (uint8_t)(1 + k), (uint32_t)(offsetof(struct acl6_key, src) + 4 * k)};
        d[F_DST0 + k] = (struct rte_acl_field_def){RTE_ACL_FIELD_TYPE_MASK, 4, (uint8_t)(F_DST0 + k),
                                                   (uint8_t)(5 + k), (uint32_t)(offsetof(struct acl6_key, dst) + 4 * k)};
    }
    /* The two ports share one group of four bytes. */
    d[F_SPORT] = (struct rte_acl_field_def){RTE_ACL_FIELD_TYPE_RANGE, 2, F_SPORT, 9,
                                            offsetof(struct acl6_key, sport)};
    d[F_DPORT] = (struct rte_acl_field_def){RTE_ACL_FIELD_TYPE_RANGE, 2, F_DPORT, 9,
                                            offsetof(struct acl6_key, dport)};
}

/* One parsed rule as rte_acl takes it: values in host order. */
static void to_acl_rule(const struct acl6_rule_text *r, uint32_t number, uint32_t count,
                        struct acl6_rule *out) {
    memset(out, 0, sizeof *out);
    out->data.category_mask = 1;
    out->data.priority = (int32_t)(count - number); /* the first line wins */
    out->data.userdata = number + 1;
    out->field[F_PROTO].value.u8 = r->proto;
    out->field[F_PROTO].mask_range.u8 = r->any_proto ? 0 : 0xff;
    for (int k = 0; k < 4; ++k) {
        uint32_t w;
        int bits;
        memcpy(&w, r->src + 4 * k, 4);
        bits = r->src_len - 32 * k;
        out->field[F_SRC0 + k].value.u32 = ntohl(w);
        out->field[F_SRC0 + k].mask_range.u32 = (uint32_t)(bits < 0 ? 0 : bits > 32 ? 32 : bits);
        memcpy(&w, r->dst + 4 * k, 4);
        bits = r->dst_len - 32 * k;
        out->field[F_DST0 + k].value.u32 = ntohl(w);
        out->field[F_DST0 + k].mask_range.u32 = (uint32_t)(bits < 0 ? 0 : bits > 32 ? 32 : bits);
    }
    out->field[F_SPORT].value.u16 = r->sport_lo;
    out->field[F_SPORT].mask_range.u16 = r->sport_hi;
    out->field[F_DPORT].value.u16 = r->dport_lo;
    out->field[F_DPORT].mask_range.u16 = r->dport_hi;
}

static int build(struct acl6 *a, const struct acl6_rule_list *rules, char *error, size_t size) {
    static unsigned serial; /* contexts are named; each engine makes its own */
    char name[RTE_ACL_NAMESIZE];
    snprintf(name, sizeof name, "acl6_%u", serial++);
    struct rte_acl_param prm = {name, a->env->socket_id, RTE_ACL_RULE_SZ(F_COUNT), rules->count};
    a->ctx = rte_acl_create(&prm);
    if (!a->ctx) return snprintf(error, size, "rte_acl_create: %s", rte_strerror(rte_errno)), -1;
    for (uint32_t i = 0; i < rules->count; ++i) {
        struct acl6_rule r;
        to_acl_rule(&rules->rule[i], i, rules->count, &r);
        a->deny[i + 1] = rules->rule[i].deny;
        int rc = rte_acl_add_rules(a->ctx, (const struct rte_acl_rule *)&r, 1);
        if (rc < 0) return snprintf(error, size, "rte_acl_add_rules: %s", strerror(-rc)), -1;
    }
    struct rte_acl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.num_categories = 1;
    cfg.num_fields = F_COUNT;
    field_defs(cfg.defs);
    int rc = rte_acl_build(a->ctx, &cfg);
    if (rc < 0) return snprintf(error, size, "rte_acl_build of %u rules: %s", rules->count, strerror(-rc)), -1;
    return 0;
}

static void acl6_destroy(void *p) {
    struct acl6 *a = p;
    if (!a) return;
    rte_acl_free(a->ctx);
    free(a->deny);
    free(a);
}

static void *acl6_create(const struct pathscope_stage_env *env, const struct pathscope_config *c,
                         char *error, size_t size) {
    struct acl6_rule_list rules = {0};
    if (acl6_read_rules(pathscope_config_text(c, "rules"), pathscope_config_text(c, "rules_file"),
                        env->base_dir, &rules, error, size) != 0) {
        acl6_free_rules(&rules); /* the lines read before the one at fault */
        return NULL;
    }
    acl6_generate_rules(&rules, (uint32_t)pathscope_config_int(c, "generate"),
                        (uint32_t)pathscope_config_int(c, "seed"));
    struct acl6 *a = calloc(1, sizeof *a);
    if (a) a->deny = calloc(rules.count + 1, 1);
    if (!a || !a->deny) {
        snprintf(error, size, "out of memory for %u rules", rules.count);
        acl6_free_rules(&rules);
        acl6_destroy(a);
        return NULL;
    }
    a->env = env;
    a->default_deny = (int)pathscope_config_int(c, "default_deny");
    int rc = rules.count ? build(a, &rules, error, size) : 0;
    acl6_free_rules(&rules);
    if (rc != 0) {
        acl6_destroy(a);
        return NULL;
    }
    return a;
}

static void make_key(const struct acl6 *a, struct rte_mbuf *m, struct acl6_key *k) {
    const struct pathscope_packet *p = pathscope_packet_of(m, a->env);
    const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, PATHSCOPE_L3_OFFSET);
    k->proto = p->l4_proto;
    memcpy(k->src, ip + 8, 16);
    memcpy(k->dst, ip + 24, 16);
    k->sport = k->dport = 0;
    uint32_t l4 = PATHSCOPE_L3_OFFSET + p->l4_off;
    if ((p->l4_proto == 17 || p->l4_proto == 6 || p->l4_proto == 132) &&
        l4 + 4 <= rte_pktmbuf_data_len(m)) {
        memcpy(&k->sport, ip - PATHSCOPE_L3_OFFSET + l4, 2);
        memcpy(&k->dport, ip - PATHSCOPE_L3_OFFSET + l4 + 2, 2);
    }
}

/* The whole burst at once: rte_acl classifies many keys in one call (its
 * vector code walks several tries side by side). */
static uint16_t acl6_burst(void *p, uint32_t worker, struct rte_mbuf **pkts, uint16_t n,
                           uint16_t *edges) {
    const struct acl6 *a = p;
    (void)worker;
    uint16_t none = a->default_deny ? PATHSCOPE_EDGE_DROP(DROP_DEFAULT) : PATHSCOPE_EDGE_NEXT;
    uint16_t any = 0;
    if (!a->ctx) {
        for (uint16_t i = 0; i < n; ++i) edges[i] = none;
        return none;
    }
    struct acl6_key keys[256];
    const uint8_t *data[256];
    uint32_t match[256];
    for (uint16_t i = 0; i < n; ++i) {
        make_key(a, pkts[i], &keys[i]);
        data[i] = (const uint8_t *)&keys[i];
    }
    rte_acl_classify(a->ctx, data, match, n, 1);
    for (uint16_t i = 0; i < n; ++i)
        any |= edges[i] = match[i] == 0        ? none
                          : a->deny[match[i]] ? PATHSCOPE_EDGE_DROP(DROP_DENY)
                                              : PATHSCOPE_EDGE_NEXT;
    return any; /* 0: every packet passed */
}

static const struct pathscope_drop_reason acl6_drops[] = {
    {"acl_deny", "a rule says deny"},
    {"acl_default", "no rule matched and default_deny is set"},
    {NULL, NULL},
};

static const struct pathscope_config_key acl6_config[] = {
    {"rules", PATHSCOPE_CONFIG_TEXT, 0, 1 << 24, 0, "", "rules, one a line (an array of strings: one each)"},
    {"rules_file", PATHSCOPE_CONFIG_TEXT, 0, 4096, 0, "", "a file of rules, one a line, # comments"},
    {"generate", PATHSCOPE_CONFIG_INT, 0, 100000, 0, NULL, "rules added after those, matching nothing the generator sends"},
    {"seed", PATHSCOPE_CONFIG_INT, 0, 1 << 30, 1, NULL, "seed of the generated rules"},
    {"default_deny", PATHSCOPE_CONFIG_INT, 0, 1, 0, NULL, "drop what no rule matches (acl_default)"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static const struct pathscope_stage acl6_stage = {
    .api_version = PATHSCOPE_STAGE_API_VERSION,
    .size = sizeof(struct pathscope_stage),
    .name = "acl6",
    .summary = "IPv6 5-tuple access list (rte_acl): first matching rule wins",
    .drops = acl6_drops,
    .config = acl6_config,
    .create = acl6_create,
    .destroy = acl6_destroy,
    .burst = acl6_burst,
};

PATHSCOPE_STAGE_DECLARE(acl6_stage)
