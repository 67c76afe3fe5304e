/* pathscope/stage.h: the stage plugin API, version 1.
 *
 * A shared object that includes this header and declares one struct
 * pathscope_stage (PATHSCOPE_STAGE_DECLARE) is a stage pathscope can splice
 * into its packet path: `[[stage]] plugin = "libacl6.so"`, `after =
 * "ip6_input"` in a scenario, or `pathscope run --stage libacl6.so:after=ip6_input`.
 * It gets every counter a built-in stage has (calls, cycles, per-call
 * histograms, packets per edge, drops by reason), on every worker.
 *
 * The interface is plain C with fixed-width types, so a plugin built out of
 * tree, in C or C++, with another compiler version, still loads. pathscope
 * reads `api_version` (the first field, in every version) before anything
 * else and refuses a plugin of another version, saying which it speaks.
 * docs/plugins.md ("Write your own stage") walks through a whole plugin.
 */
#ifndef PATHSCOPE_STAGE_H
#define PATHSCOPE_STAGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/** The version of this header. pathscope loads plugins of this version only. */
#define PATHSCOPE_STAGE_API_VERSION 1u

/* ---- What a process function returns for a packet: its edge ---- */

/** The stage's main edge: on to the stage the scenario spliced it before
 *  (with `after = "ip6_input"`, wherever ip6_input's packet was going). */
#define PATHSCOPE_EDGE_NEXT ((uint16_t)0)
/** Edge i of the stage's next_stages list (first: 0), after the main edge. */
#define PATHSCOPE_EDGE_STAGE(i) ((uint16_t)(1u + (uint16_t)(i)))
/** Drop the packet for the stage's drop reason r (an index into `drops`);
 *  it is counted under that reason's name in the run's ledger. */
#define PATHSCOPE_EDGE_DROP(r) ((uint16_t)(0x8000u | (uint16_t)(r)))

/* ---- Configuration: the scenario's [stage.config] table ---- */

enum pathscope_config_type {
    PATHSCOPE_CONFIG_INT = 1,  /**< an integer in [min, max] (true and false: 1 and 0) */
    PATHSCOPE_CONFIG_TEXT = 2, /**< a string, or an array of strings joined by newlines;
                                    min and max bound its length in bytes */
};

/** A configuration key the stage accepts. pathscope checks the scenario's
 *  values against these (type, range, unknown keys) before the stage is
 *  created, so create() sees only declared keys with values in range. */
struct pathscope_config_key {
    const char *name;          /**< NULL ends the list */
    uint32_t type;             /**< enum pathscope_config_type */
    int64_t min, max;          /**< INT: the allowed values; TEXT: the allowed length */
    int64_t default_int;       /**< INT: the value when the scenario gives none */
    const char *default_text;  /**< TEXT: the value when the scenario gives none (NULL: "") */
    const char *help;          /**< one line, shown by `pathscope stage FILE.so` */
};

/** One key's value as create() sees it: every declared key is present. */
struct pathscope_config_value {
    const char *name;
    int64_t int_value;  /**< INT keys */
    const char *text;   /**< TEXT keys: NUL-terminated, never NULL */
};

struct pathscope_config {
    const struct pathscope_config_value *values;
    uint32_t count;
};

/** The value of key `name` (NULL when the stage did not declare it). */
static inline const struct pathscope_config_value *
pathscope_config_find(const struct pathscope_config *c, const char *name) {
    uint32_t i;
    for (i = 0; i < c->count; ++i) {
        const char *a = c->values[i].name, *b = name;
        while (*a && *a == *b) ++a, ++b;
        if (*a == *b) return &c->values[i];
    }
    return NULL;
}

static inline int64_t pathscope_config_int(const struct pathscope_config *c, const char *name) {
    const struct pathscope_config_value *v = pathscope_config_find(c, name);
    return v ? v->int_value : 0;
}

static inline const char *pathscope_config_text(const struct pathscope_config *c,
                                                const char *name) {
    const struct pathscope_config_value *v = pathscope_config_find(c, name);
    return v ? v->text : "";
}

/* ---- What pathscope tells a stage when it creates it ---- */

/** The per-packet state pathscope's earlier stages found, read-only for a
 *  stage: an mbuf dynamic field at env->packet_offset (pathscope_packet_of()). */
struct pathscope_packet {
    uint64_t rx_tsc;    /**< TSC when eth_rx received it */
    uint32_t nexthop;   /**< set by ip6_lookup */
    uint16_t rx_port;   /**< DPDK port it came in on */
    uint16_t tx_port;   /**< set on the transmit path */
    uint16_t tx_queue;  /**< set by txq_select */
    uint16_t l4_off;    /**< after ip6_input: the upper-layer header's offset from the IPv6 header */
    uint8_t l4_proto;   /**< after ip6_input: the upper-layer protocol (past extension headers) */
};

/** Every packet's Ethernet header stays in place: the IPv6 header starts
 *  this many bytes into the mbuf's data. */
#define PATHSCOPE_L3_OFFSET 14u

struct pathscope_stage_env {
    uint32_t size;           /**< sizeof this struct: later versions append fields */
    uint32_t workers;        /**< worker lcores; process calls pass 0 .. workers - 1 */
    uint64_t tsc_hz;         /**< the TSC's rate (rte_rdtsc() ticks a second) */
    int32_t socket_id;       /**< NUMA socket of the workers' memory */
    int32_t packet_offset;   /**< where struct pathscope_packet is in every mbuf */
    const char *stage;       /**< the stage's name */
    const char *plugin_path; /**< the shared object it came from */
    /** The folder relative file names in the config are taken from (the
     *  scenario's folder; the current folder for run --stage). */
    const char *base_dir;
};

static inline const struct pathscope_packet *
pathscope_packet_of(const struct rte_mbuf *m, const struct pathscope_stage_env *env) {
    return (const struct pathscope_packet *)((const char *)m + env->packet_offset);
}

/* ---- The stage ---- */

/** A drop reason: counted per reason in the ledger, named in every view. */
struct pathscope_drop_reason {
    const char *name;  /**< NULL ends the list; [a-z0-9_], at most 31 bytes */
    const char *text;  /**< what it means, one line */
};

/** Made once per engine (each trial), on the control thread, after the EAL
 *  is up (rte_malloc, rte_acl_create, ... work). Returns the instance that
 *  every other call gets, or NULL with a message in `error` (NUL-terminated,
 *  at most error_size bytes): the run then stops before anything is stored.
 *  `env` stays valid until destroy() (a stage may keep the pointer); `config`
 *  only during the call. */
typedef void *(*pathscope_create_fn)(const struct pathscope_stage_env *env,
                                     const struct pathscope_config *config, char *error,
                                     size_t error_size);
/** After the workers stopped, with what create() returned. */
typedef void (*pathscope_destroy_fn)(void *instance);
/** Per packet: the packet's edge (PATHSCOPE_EDGE_*). Called on worker
 *  `worker`'s lcore; workers call it at the same time, each with its own
 *  packets. pathscope counts and enqueues; the stage never frees a packet. */
typedef uint16_t (*pathscope_classify_fn)(void *instance, uint32_t worker, struct rte_mbuf *m);
/** Per burst: edges[i] = the edge of pkts[i], for i < n (n <= 256). Returns
 *  0 when every packet takes PATHSCOPE_EDGE_NEXT (`edges` may then be left
 *  unwritten, and pathscope hands the whole burst on at once), anything else
 *  otherwise (the OR of the edges is one way). */
typedef uint16_t (*pathscope_burst_fn)(void *instance, uint32_t worker, struct rte_mbuf **pkts,
                                       uint16_t n, uint16_t *edges);

/** Defines `name`, a burst function made from the per-packet classifier
 *  `classify` (a function of the plugin's own): the classifier keeps its
 *  shape and the plugin's compiler inlines it in this loop, so pathscope
 *  calls the stage once a burst instead of once a packet. Give `name` as the
 *  stage's `burst`. */
#define PATHSCOPE_DEFINE_BURST(name, classify)                                                   \
    static uint16_t name(void *instance, uint32_t worker, struct rte_mbuf **pkts, uint16_t n,  \
                         uint16_t *edges) {                                                    \
        uint16_t i, any = 0;                                                                   \
        for (i = 0; i < n; ++i) any |= edges[i] = classify(instance, worker, pkts[i]);         \
        return any;                                                                            \
    }

struct pathscope_stage {
    uint32_t api_version;  /**< PATHSCOPE_STAGE_API_VERSION: first in every version */
    uint32_t size;         /**< sizeof(struct pathscope_stage) */
    const char *name;      /**< the stage's name in every view: [a-z0-9_], at most 31 bytes */
    const char *summary;   /**< one line: what it does */
    /** Stages it may send packets to besides its main edge, by name (a
     *  built-in stage such as "ip6_lookup", or another plugin's); NULL-terminated, or NULL. */
    const char *const *next_stages;
    const struct pathscope_drop_reason *drops;  /**< ends with {NULL}; or NULL */
    const struct pathscope_config_key *config;  /**< ends with {NULL}; or NULL */
    pathscope_create_fn create;    /**< NULL: the instance is NULL */
    pathscope_destroy_fn destroy;  /**< may be NULL */
    /** Exactly one of the two: a per-packet classifier, or a whole-burst function. */
    pathscope_classify_fn classify;
    pathscope_burst_fn burst;
};

/** The one symbol pathscope looks up in a plugin. */
#define PATHSCOPE_STAGE_ENTRY_SYMBOL "pathscope_stage_entry"
typedef const struct pathscope_stage *(*pathscope_stage_entry_fn)(void);

#ifdef __cplusplus
#define PATHSCOPE_STAGE_EXTERN_C extern "C"
#else
#define PATHSCOPE_STAGE_EXTERN_C
#endif

/** Declares `stage` (a struct pathscope_stage) as the plugin's stage. */
#define PATHSCOPE_STAGE_DECLARE(stage)                                                       \
    PATHSCOPE_STAGE_EXTERN_C __attribute__((visibility("default"))) const struct pathscope_stage \
        *pathscope_stage_entry(void);                                                        \
    PATHSCOPE_STAGE_EXTERN_C __attribute__((visibility("default"))) const struct pathscope_stage \
        *pathscope_stage_entry(void) {                                                       \
        return &(stage);                                                                     \
    }

#ifdef __cplusplus
}
#endif

#endif /* PATHSCOPE_STAGE_H */
