#include "capture/scenario_stages.h"

#include <charconv>
#include <filesystem>

#include "capture/scenario.h"
#include "capture/scenario_where.h"

namespace pathscope::capture {

namespace {

[[noreturn]] void fail(const toml::node& n, const std::string& file, const std::string& msg) {
    throw ScenarioError(where(n, file) + ": " + msg);
}

/// One [stage.config] value: an integer, true/false, a string, or an array
/// of strings (joined by newlines: a rule a line reads well in TOML).
engine::StageSetting setting(const std::string& key, const toml::node& v, const std::string& file) {
    engine::StageSetting s;
    s.key = key;
    if (const auto* i = v.as_integer()) {
        s.number = i->get();
    } else if (const auto* b = v.as_boolean()) {
        s.number = b->get() ? 1 : 0;
    } else if (const auto* t = v.as_string()) {
        s.is_text = true;
        s.text = t->get();
    } else if (const auto* a = v.as_array(); a && a->is_homogeneous(toml::node_type::string)) {
        s.is_text = true;
        for (const auto& e : *a) s.text += (s.text.empty() ? "" : "\n") + e.as_string()->get();
    } else {
        fail(v, file, "'stage.config." + key.substr(0, 40) +
                          "' must be an integer, true or false, a string, or an array of strings");
    }
    return s;
}

engine::StageConfig read_stage(const toml::table& t, const std::string& file,
                               const std::string& base_dir) {
    engine::StageConfig c;
    c.origin = where(t, file);
    c.base_dir = base_dir.empty() ? "." : base_dir;
    auto text = [&](const char* k, std::string& out) {
        const toml::node* n = t.get(k);
        if (!n) return;
        if (!n->is_string()) fail(*n, file, std::string("'stage.") + k + "' must be a string");
        out = n->as_string()->get();
    };
    for (const auto& [k, v] : t) {
        const std::string key(k.str());
        if (key != "plugin" && key != "after" && key != "before" && key != "config")
            fail(v, file, "unknown key 'stage." + key.substr(0, 40) +
                              "' (known keys here: plugin, after, before, config)");
    }
    text("plugin", c.plugin);
    text("after", c.after);
    text("before", c.before);
    if (c.plugin.empty()) fail(t, file, "every [[stage]] needs 'plugin' (the shared object's path)");
    if (c.after.empty())
        fail(t, file, "[[stage]] " + c.plugin + " needs 'after' (the stage whose edge it is "
                      "spliced into, like \"ip6_input\")");
    c.plugin = resolve(base_dir, c.plugin);
    if (const toml::node* n = t.get("config")) {
        if (!n->is_table()) fail(*n, file, "'stage.config' must be a table ([stage.config])");
        for (const auto& [k, v] : *n->as_table()) c.config.push_back(setting(std::string(k.str()), v, file));
    }
    return c;
}

}  // namespace

std::vector<engine::StageConfig> read_stages(const toml::table& root, const std::string& file,
                                             const std::string& base_dir) {
    std::vector<engine::StageConfig> out;
    const toml::node* n = root.get("stage");
    if (!n) return out;
    if (!n->is_array_of_tables()) fail(*n, file, "'stage' must be written as [[stage]] tables");
    for (const auto& e : *n->as_array()) out.push_back(read_stage(*e.as_table(), file, base_dir));
    return out;
}

engine::StageConfig parse_stage_option(const std::string& text) {
    const std::string form =
        "--stage FILE.so:after=STAGE[,before=STAGE][,KEY=VALUE...], like --stage "
        "build/libacl6.so:after=ip6_input";
    // The file is the longest prefix before a ':' that names one (a path
    // may hold ':'); what follows is KEY=VALUE settings.
    size_t colon = std::string::npos;
    for (size_t at = text.find(':'); at != std::string::npos; at = text.find(':', at + 1))
        if (std::filesystem::is_regular_file(text.substr(0, at))) colon = at;
    if (colon == std::string::npos)
        throw ScenarioError("--stage " + text.substr(0, 80) + ": expected " + form +
                            (text.find(':') == std::string::npos ? " (no ':after=...')"
                                                                 : " (no file before a ':')"));
    engine::StageConfig c;
    c.origin = "--stage";
    c.base_dir = ".";
    c.plugin = std::filesystem::absolute(text.substr(0, colon)).lexically_normal().string();
    std::string rest = text.substr(colon + 1);
    for (size_t start = 0; start <= rest.size();) {
        const size_t comma = std::min(rest.find(',', start), rest.size());
        const std::string item = rest.substr(start, comma - start);
        start = comma + 1;
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw ScenarioError("--stage " + text.substr(0, 80) + ": '" + item.substr(0, 40) +
                                "' is not KEY=VALUE; expected " + form);
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        if (key == "after") {
            c.after = value;
        } else if (key == "before") {
            c.before = value;
        } else {
            engine::StageSetting s;
            s.key = key;
            const char* end = value.data() + value.size();
            if (value == "true" || value == "false") {
                s.number = value == "true";
            } else if (value.empty() || std::from_chars(value.data(), end, s.number).ptr != end) {
                s.is_text = true;
                s.text = value;
            }
            c.config.push_back(s);
        }
    }
    if (c.after.empty())
        throw ScenarioError("--stage " + text.substr(0, 80) + ": no after=STAGE; expected " + form);
    return c;
}

std::string describe_stage(const engine::StageConfig& st) {
    std::string out = "plugin=" + st.plugin + " after=" + st.after;
    if (!st.before.empty()) out += " before=" + st.before;
    for (const engine::StageSetting& s : st.config) {
        std::string v = s.is_text ? s.text : std::to_string(s.number);
        for (size_t at = v.find('\n'); at != std::string::npos; at = v.find('\n', at + 2))
            v.replace(at, 1, "\\n");
        out += " " + s.key + "=" + v;
    }
    return out;
}

}  // namespace pathscope::capture
