#include "acl6_rules.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *error, size_t size, const char *what, const char *word) {
    snprintf(error, size, "%s '%.40s'", what, word);
    return -1;
}

static int prefix(const char *word, uint8_t *addr, int *len) {
    char buf[64];
    const char *slash = strchr(word, '/');
    size_t n = slash ? (size_t)(slash - word) : strlen(word);
    if (n >= sizeof buf) return -1;
    memcpy(buf, word, n);
    buf[n] = '\0';
    if (inet_pton(AF_INET6, buf, addr) != 1) return -1;
    char *end;
    long l = slash ? strtol(slash + 1, &end, 10) : 128;
    if ((slash && (*end || end == slash + 1)) || l < 0 || l > 128) return -1;
    *len = (int)l;
    for (int bit = *len; bit < 128; ++bit) addr[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8)); /* host bits */
    return 0;
}

static int port_range(const char *word, uint16_t *lo, uint16_t *hi) {
    char *end;
    long a = strtol(word, &end, 10), b = a;
    if (end == word) return -1;
    if (*end == '-') {
        const char *rest = end + 1;
        b = strtol(rest, &end, 10);
        if (end == rest) return -1;
    }
    if (*end || a < 0 || b < a || b > 65535) return -1;
    *lo = (uint16_t)a, *hi = (uint16_t)b;
    return 0;
}

static int protocol(const char *word, uint8_t *proto) {
    if (!strcmp(word, "udp")) return *proto = 17, 0;
    if (!strcmp(word, "tcp")) return *proto = 6, 0;
    if (!strcmp(word, "icmp6")) return *proto = 58, 0;
    char *end;
    long p = strtol(word, &end, 10);
    if (end == word || *end || p < 0 || p > 255) return -1;
    *proto = (uint8_t)p;
    return 0;
}

int acl6_parse_rule(const char *line, struct acl6_rule_text *r, char *error, size_t size) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", line);
    char *hash = strchr(buf, '#');
    if (hash) *hash = '\0';
    char *save = NULL, *w = strtok_r(buf, " \t\r", &save);
    if (!w) return 0;
    memset(r, 0, sizeof *r);
    r->any_proto = 1;
    r->sport_hi = r->dport_hi = 65535;
    if (!strcmp(w, "deny")) r->deny = 1;
    else if (strcmp(w, "permit")) return fail(error, size, "expected deny or permit, not", w);
    while ((w = strtok_r(NULL, " \t\r", &save))) {
        char *v = strtok_r(NULL, " \t\r", &save);
        if (!v) return fail(error, size, "no value after", w);
        int bad;
        if (!strcmp(w, "src")) bad = prefix(v, r->src, &r->src_len);
        else if (!strcmp(w, "dst")) bad = prefix(v, r->dst, &r->dst_len);
        else if (!strcmp(w, "proto")) bad = protocol(v, &r->proto), r->any_proto = 0;
        else if (!strcmp(w, "sport")) bad = port_range(v, &r->sport_lo, &r->sport_hi);
        else if (!strcmp(w, "dport")) bad = port_range(v, &r->dport_lo, &r->dport_hi);
        else return fail(error, size, "expected src, dst, proto, sport or dport, not", w);
        if (bad) {
            const char *kind = !strcmp(w, "proto")   ? "a protocol (udp, tcp, icmp6 or 0-255)"
                               : !strcmp(w, "sport") || !strcmp(w, "dport") ? "a port or range (A-B)"
                                                                            : "an IPv6 prefix";
            snprintf(error, size, "%s '%.40s' is not %s", w, v, kind);
            return -1;
        }
    }
    return 1;
}

static int push(struct acl6_rule_list *l, const struct acl6_rule_text *r) {
    if (l->count == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 64;
        struct acl6_rule_text *n = realloc(l->rule, cap * sizeof *n);
        if (!n) return -1;
        l->rule = n, l->cap = cap;
    }
    l->rule[l->count++] = *r;
    return 0;
}

static int parse_lines(const char *text, const char *what, struct acl6_rule_list *l, char *error,
                       size_t size) {
    unsigned lineno = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        ++lineno;
        if (n >= sizeof line) return snprintf(error, size, "%s line %u is longer than %zu bytes", what, lineno, sizeof line - 1), -1;
        memcpy(line, p, n);
        line[n] = '\0';
        p = nl ? nl + 1 : NULL;
        struct acl6_rule_text r;
        char why[256];
        int rc = acl6_parse_rule(line, &r, why, sizeof why);
        if (rc < 0) return snprintf(error, size, "%s line %u: %s", what, lineno, why), -1;
        if (rc > 0 && push(l, &r) != 0) return snprintf(error, size, "out of memory"), -1;
    }
    return 0;
}

int acl6_read_rules(const char *text, const char *file, const char *base_dir,
                    struct acl6_rule_list *rules, char *error, size_t size) {
    if (parse_lines(text, "rules", rules, error, size) != 0) return -1;
    if (!file || !*file) return 0;
    char path[4096 + 512];
    snprintf(path, sizeof path, "%s%s%s", file[0] == '/' ? "" : base_dir, file[0] == '/' ? "" : "/", file);
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(error, size, "rules_file %.200s: cannot open it", path), -1;
    char *all = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&all, &len);
    char buf[4096];
    size_t got;
    while (mem && (got = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, got, mem);
    fclose(f);
    if (mem) fclose(mem);
    char what[256];
    snprintf(what, sizeof what, "rules_file %.200s", file);
    int rc = all ? parse_lines(all, what, rules, error, size) : (snprintf(error, size, "out of memory"), -1);
    free(all);
    return rc;
}

void acl6_generate_rules(struct acl6_rule_list *rules, uint32_t n, uint32_t seed) {
    uint64_t x = seed * 2654435761u + 1;
    for (uint32_t i = 0; i < n; ++i) {
        struct acl6_rule_text r;
        memset(&r, 0, sizeof r);
        r.deny = 1;
        r.any_proto = 1;
        for (int b = 0; b < 16; ++b) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
            r.src[b] = (uint8_t)x;
            r.dst[b] = (uint8_t)(x >> 8);
        }
        r.src[0] = 0xfd; /* fd00::/8: no generated source is there */
        r.src_len = 48 + (int)(x % 17);
        r.dst[0] = (uint8_t)(0x20 | (r.dst[0] & 0x1f));
        r.dst_len = 32 + (int)((x >> 16) % 33);
        r.sport_lo = 0, r.sport_hi = 65535;
        r.dport_lo = (uint16_t)((x >> 24) % 60000);
        r.dport_hi = (uint16_t)(r.dport_lo + (x >> 40) % 1000);
        if (push(rules, &r) != 0) return;
    }
}

void acl6_free_rules(struct acl6_rule_list *rules) {
    free(rules->rule);
    rules->rule = NULL;
    rules->count = rules->cap = 0;
}
