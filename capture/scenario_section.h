// The scenario readers' table walker: a Section checks one TOML table's
// keys, types and numeric ranges (every range is in kRanges,
// scenario_section.cpp: one place for the file, --set and the run verb's
// options), with errors that name the file, line and dotted key.
#pragma once

#include <toml++/toml.h>

#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "capture/scenario.h"
#include "capture/scenario_where.h"

namespace pathscope::capture {

/// A numeric setting's range and unit. Ports, next hops, routes and apps
/// are named by their table ("port.rx_queues"), whichever one they are in.
struct SettingRange {
    const char* key;
    double min, max;
    const char* unit;
};

/// The range of a numeric setting ("engine.burst", "port.rx_queues"), or
/// nullptr when it has none.
const SettingRange* find_range(const std::string& key);

/// "64", "0.01", "1e+09", "nan", "inf": a number as a user would type it.
std::string setting_number_text(double v);

/// The known key a typo most likely meant: the closest within a third of
/// its length (at least one edit), or "" when none is that close.
std::string nearest(const std::string& typo, const std::vector<std::string>& known);

/// Walks one TOML table, checking keys and types, with errors that point at
/// the file, line and dotted key.
class Section {
  public:
    Section(const toml::table& t, std::string file, std::string path)
        : t_(t), file_(std::move(file)), path_(std::move(path)) {}

    /// Call last: every key that no get*() asked for is unknown.
    void finish() const {
        for (const auto& [k, v] : t_) {
            const std::string name(k.str());
            if (known_.count(name)) continue;
            std::string list;
            for (const auto& n : order_) list += (list.empty() ? "" : ", ") + n;
            const std::string near = nearest(name, order_);
            fail(v, "unknown key '" + key(name) + "'" +
                        (near.empty() ? "" : " (did you mean '" + key(near) + "'?)") +
                        " (known keys here: " + list + ")");
        }
    }

    /// Declares a key as known without reading it (a sub-table read elsewhere).
    void know(const char* k) const {
        if (known_.insert(k).second) order_.push_back(k);
    }

    template <typename T>
    void get(const char* k, T& out) const {
        know(k);
        check_range_fits<T>(k);  // before the key's presence: a missing range shows in every test
        const toml::node* n = t_.get(k);
        if (!n) return;
        if constexpr (std::is_same_v<T, bool>) {
            if (!n->is_boolean()) fail(*n, "'" + key(k) + "' must be true or false");
            out = n->as_boolean()->get();
        } else if constexpr (std::is_same_v<T, std::string>) {
            if (!n->is_string()) fail(*n, "'" + key(k) + "' must be a string");
            out = n->as_string()->get();
        } else if constexpr (std::is_same_v<T, double>) {
            if (!n->is_number()) fail(*n, "'" + key(k) + "' must be a number");
            const double v = n->is_integer() ? static_cast<double>(n->as_integer()->get())
                                             : n->as_floating_point()->get();
            check(*n, k, v);
            out = v;
        } else {
            if (!n->is_integer()) fail(*n, "'" + key(k) + "' must be an integer");
            const int64_t v = n->as_integer()->get();
            check(*n, k, static_cast<double>(v));
            out = static_cast<T>(v);
        }
    }

    /// The range check of a numeric key (kRanges), which must fit in `T`.
    template <typename T>
    void check_range_fits(const char* k) const {
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
            const SettingRange* r = find_range(key(k));
            if (!r || r->max > static_cast<double>(std::numeric_limits<T>::max()) ||
                (std::is_unsigned_v<T> && r->min < 0))
                throw std::logic_error("scenario: no range (or one too wide) for '" + key(k) +
                                       "' in kRanges");
        }
    }
    void check(const toml::node& n, const char* k, double v) const {
        const std::string msg = check_setting(key(k), v);
        if (!msg.empty()) fail(n, msg);
    }

    void get_strings(const char* k, std::vector<std::string>& out) const {
        know(k);
        const toml::node* n = t_.get(k);
        if (!n) return;
        if (!n->is_array()) fail(*n, "'" + key(k) + "' must be an array of strings");
        out.clear();
        for (const auto& e : *n->as_array()) {
            if (!e.is_string()) fail(e, "'" + key(k) + "' must be an array of strings");
            out.push_back(e.as_string()->get());
        }
    }

    template <typename T, typename Parse>
    void get_parsed(const char* k, T& out, Parse parse, const char* what) const {
        std::string s;
        get(k, s);
        if (s.empty() && !t_.get(k)) return;
        auto v = parse(s);
        if (!v) fail(*t_.get(k), "'" + key(k) + "' = \"" + s + "\" is not " + what);
        out = *v;
    }

    const toml::table* table(const char* k) const {
        know(k);
        const toml::node* n = t_.get(k);
        if (!n) return nullptr;
        if (!n->is_table()) fail(*n, "'" + key(k) + "' must be a table ([" + key(k) + "])");
        return n->as_table();
    }

    /// An array of tables ([[k]]).
    std::vector<const toml::table*> tables(const char* k) const {
        know(k);
        std::vector<const toml::table*> out;
        const toml::node* n = t_.get(k);
        if (!n) return out;
        if (!n->is_array_of_tables())
            fail(*n, "'" + key(k) + "' must be written as [[" + key(k) + "]] tables");
        for (const auto& e : *n->as_array()) out.push_back(e.as_table());
        return out;
    }

    [[noreturn]] void fail(const toml::node& n, const std::string& msg) const {
        throw ScenarioError(where(n) + ": " + owner_ + msg);
    }
    [[noreturn]] void fail_here(const std::string& msg) const {
        throw ScenarioError(where(t_) + ": " + owner_ + msg);
    }
    /// Names the table an error is in, for an array of tables ("port 'wire'").
    void owned_by(const std::string& owner) { owner_ = owner + ": "; }
    std::string where(const toml::node& n) const { return capture::where(n, file_); }

    std::string key(const std::string& k) const { return path_.empty() ? k : path_ + "." + k; }

  private:
    const toml::table& t_;
    std::string file_;
    std::string path_;
    mutable std::set<std::string> known_;
    mutable std::vector<std::string> order_;
    std::string owner_;
};

}  // namespace pathscope::capture
