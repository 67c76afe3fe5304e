#include "engine/plugins/plugin_library.h"

#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

#include "engine/dpdk.h"

namespace pathscope::engine {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw std::runtime_error("plugin " + path + ": " + what);
}

/// [a-z][a-z0-9_]*, at most `max` bytes: a name that reads the same in a
/// terminal, a CSV column and a store row.
bool well_formed(const char* s, size_t max) {
    if (!s || !*s || std::strlen(s) > max || !(*s >= 'a' && *s <= 'z')) return false;
    for (const char* c = s; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return false;
    return true;
}

std::string text_or_empty(const char* s) { return s ? s : ""; }

void check_name(const pathscope_stage* s, const std::string& path) {
    if (!well_formed(s->name, kMaxStageNameLength))
        fail(path, "its stage name " + (s->name ? "'" + std::string(s->name).substr(0, 40) + "'" : std::string("(none)")) +
                       " is not [a-z][a-z0-9_]* of at most " + std::to_string(kMaxStageNameLength) +
                       " bytes");
}

std::vector<std::string> next_stages(const pathscope_stage* s, const std::string& path) {
    std::vector<std::string> out;
    for (const char* const* n = s->next_stages; n && *n; ++n) {
        if (out.size() == kMaxPluginNextStages)
            fail(path, "stage " + std::string(s->name) + " declares more than " +
                           std::to_string(kMaxPluginNextStages) +
                           " next stages (a stage has at most 7 edges: its main edge, these, and drop)");
        if (!**n || std::strlen(*n) >= RTE_NODE_NAMESIZE)
            fail(path, "stage " + std::string(s->name) + ": next stage " +
                           std::to_string(out.size()) + " has an empty or overlong name");
        out.emplace_back(*n);
    }
    return out;
}

std::vector<StageDrop> drops(const pathscope_stage* s, const std::string& path) {
    std::vector<StageDrop> out;
    for (const pathscope_drop_reason* d = s->drops; d && d->name; ++d) {
        const std::string where = "stage " + std::string(s->name) + ": drop reason " +
                                  std::to_string(out.size());
        if (out.size() == kMaxPluginDrops)
            fail(path, "stage " + std::string(s->name) + " declares more than " +
                           std::to_string(kMaxPluginDrops) + " drop reasons");
        if (!well_formed(d->name, kMaxStageNameLength))
            fail(path, where + " '" + std::string(d->name).substr(0, 40) +
                           "' is not [a-z][a-z0-9_]* of at most " +
                           std::to_string(kMaxStageNameLength) + " bytes");
        for (const auto& o : out)
            if (o.name == d->name) fail(path, where + " '" + o.name + "' is declared twice");
        out.push_back({d->name, text_or_empty(d->text)});
    }
    return out;
}

std::vector<StageConfigKey> config_keys(const pathscope_stage* s, const std::string& path) {
    std::vector<StageConfigKey> out;
    for (const pathscope_config_key* k = s->config; k && k->name; ++k) {
        const std::string where = "stage " + std::string(s->name) + ": config key " +
                                  std::to_string(out.size());
        if (!well_formed(k->name, kMaxStageNameLength))
            fail(path, where + " '" + std::string(k->name).substr(0, 40) +
                           "' is not [a-z][a-z0-9_]* of at most " +
                           std::to_string(kMaxStageNameLength) + " bytes");
        for (const auto& o : out)
            if (o.name == k->name) fail(path, where + " '" + o.name + "' is declared twice");
        StageConfigKey c{k->name, k->type == PATHSCOPE_CONFIG_TEXT, k->min, k->max,
                         k->default_int, text_or_empty(k->default_text), text_or_empty(k->help)};
        if (k->type != PATHSCOPE_CONFIG_INT && k->type != PATHSCOPE_CONFIG_TEXT)
            fail(path, where + " '" + c.name + "' has type " + std::to_string(k->type) +
                           " (PATHSCOPE_CONFIG_INT is 1, PATHSCOPE_CONFIG_TEXT 2)");
        if (c.min > c.max || (c.is_text && c.min < 0))
            fail(path, where + " '" + c.name + "' has the range " + std::to_string(c.min) + " to " +
                           std::to_string(c.max));
        const int64_t dflt = c.is_text ? static_cast<int64_t>(c.default_text.size()) : c.default_int;
        if (dflt < c.min || dflt > c.max)
            fail(path, where + " '" + c.name + "': its default" + (c.is_text ? "'s length" : "") +
                           " " + std::to_string(dflt) + " is outside its range " +
                           std::to_string(c.min) + " to " + std::to_string(c.max));
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace

StageDeclaration check_declaration(const pathscope_stage* s, const std::string& path) {
    if (!s) fail(path, "its " PATHSCOPE_STAGE_ENTRY_SYMBOL "() returned no stage (NULL)");
    if (s->api_version != PATHSCOPE_STAGE_API_VERSION)
        fail(path, "it was built for stage API version " + std::to_string(s->api_version) +
                       ", and this pathscope loads version " +
                       std::to_string(PATHSCOPE_STAGE_API_VERSION) +
                       " only: rebuild it against this pathscope's pathscope/stage.h "
                       "(pkg-config --cflags pathscope)");
    if (s->size < sizeof(pathscope_stage))
        fail(path, "its struct pathscope_stage is " + std::to_string(s->size) +
                       " bytes, and version " + std::to_string(PATHSCOPE_STAGE_API_VERSION) +
                       "'s is " + std::to_string(sizeof(pathscope_stage)) +
                       " (set .size = sizeof(struct pathscope_stage))");
    check_name(s, path);
    if (!s->classify == !s->burst)
        fail(path, "stage " + std::string(s->name) + " must give exactly one process function, " +
                       "classify (per packet) or burst (per burst); it gives " +
                       (s->classify ? "both" : "neither"));
    StageDeclaration d;
    d.path = path;
    d.name = s->name;
    d.summary = text_or_empty(s->summary);
    d.next_stages = next_stages(s, path);
    d.drops = drops(s, path);
    d.config = config_keys(s, path);
    d.raw = s;
    return d;
}

const StageDeclaration& load_plugin(const std::string& path) {
    static std::mutex mu;
    static std::map<std::string, StageDeclaration> loaded;  // by canonical path
    std::error_code ec;
    const std::string canonical = std::filesystem::canonical(path, ec).string();
    if (ec) fail(path, "cannot open it: " + ec.message());
    const std::lock_guard lock(mu);
    if (const auto it = loaded.find(canonical); it != loaded.end()) return it->second;
    // RTLD_NOW: an unresolved symbol is an error here, not a crash mid-run.
    void* handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) fail(path, std::string("cannot load it: ") + dlerror());
    auto entry = reinterpret_cast<pathscope_stage_entry_fn>(dlsym(handle, PATHSCOPE_STAGE_ENTRY_SYMBOL));
    if (!entry) {
        dlclose(handle);
        fail(path, "it is no pathscope stage: it exports no " PATHSCOPE_STAGE_ENTRY_SYMBOL
                   "() (declare the stage with PATHSCOPE_STAGE_DECLARE from pathscope/stage.h)");
    }
    StageDeclaration d;
    try {
        d = check_declaration(entry(), path);
    } catch (...) {
        dlclose(handle);
        throw;
    }
    return loaded.emplace(canonical, std::move(d)).first->second;
}

void probe_plugin(const std::string& path) {
    int fds[2];
    if (pipe(fds) != 0) fail(path, std::string("cannot check it: pipe: ") + std::strerror(errno));
    const pid_t child = fork();
    if (child < 0) {
        close(fds[0]), close(fds[1]);
        fail(path, std::string("cannot check it: fork: ") + std::strerror(errno));
    }
    if (child == 0) {
        close(fds[0]);
        // A crash must end the child by its signal, whatever the parent
        // installed for it (a sanitizer's handler turns it into an exit status).
        for (const int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) signal(sig, SIG_DFL);
        int status = 0;
        std::string msg;
        try {
            load_plugin(path);
        } catch (const std::exception& e) {
            msg = e.what();
            status = 3;
        }
        for (size_t off = 0; off < msg.size();) {
            const ssize_t w = write(fds[1], msg.data() + off, msg.size() - off);
            if (w <= 0) break;
            off += static_cast<size_t>(w);
        }
        _exit(status);  // no atexit handlers, no stdio flush: the parent's, not ours
    }
    close(fds[1]);
    std::string msg;
    char buf[512];
    // A plugin that never finishes loading (a constructor that loops) is
    // stopped after 10 s rather than hanging the run.
    pollfd p{fds[0], POLLIN, 0};
    bool timed_out = false;
    for (;;) {
        const int ready = poll(&p, 1, 10000);
        if (ready == 0) {
            timed_out = true;
            kill(child, SIGKILL);
            break;
        }
        if (ready < 0 && errno == EINTR) continue;
        const ssize_t n = ready > 0 ? read(fds[0], buf, sizeof buf) : -1;
        if (n <= 0) break;
        msg.append(buf, static_cast<size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) fail(path, "it did not finish loading in 10 s (checked in a child process)");
    if (WIFSIGNALED(status))
        fail(path, "it crashed while loading (signal " + std::to_string(WTERMSIG(status)) + ", " +
                       strsignal(WTERMSIG(status)) +
                       ", in its constructors or " PATHSCOPE_STAGE_ENTRY_SYMBOL
                       "(), checked in a child process): pathscope did not load it");
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3) throw std::runtime_error(msg);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail(path, "it ended the process while loading (exit status " +
                       std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
}

}  // namespace pathscope::engine
