/* acl6's rules as text: parsing, reading a rules file, generating filler. */
#ifndef ACL6_RULES_H
#define ACL6_RULES_H

#include <stddef.h>
#include <stdint.h>

struct acl6_rule_text {
    int deny;
    uint8_t src[16], dst[16];
    int src_len, dst_len; /* 0: any */
    int any_proto;
    uint8_t proto;
    uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
};

struct acl6_rule_list {
    struct acl6_rule_text *rule;
    uint32_t count, cap;
};

/* One line: 1 (a rule in *out), 0 (blank or a comment), -1 (an error in `error`). */
int acl6_parse_rule(const char *line, struct acl6_rule_text *out, char *error, size_t size);

/* The rules of `text` (lines), then of the file `file` (relative to
 * `base_dir`; "" for none). 0, or -1 with the line at fault in `error`. */
int acl6_read_rules(const char *text, const char *file, const char *base_dir,
                    struct acl6_rule_list *rules, char *error, size_t size);

/* Appends `n` deny rules for sources in fd00::/8, which the generator never
 * uses, with random destinations and port ranges. */
void acl6_generate_rules(struct acl6_rule_list *rules, uint32_t n, uint32_t seed);

void acl6_free_rules(struct acl6_rule_list *rules);

#endif
