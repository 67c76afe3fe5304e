#include "engine/telemetry.h"

#include <rte_telemetry.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string_view>

#include "engine/drop_names.h"
#include "engine/eal.h"
#include "engine/engine.h"

namespace pathscope::engine {

namespace {

std::mutex g_mutex;               // guards g_engine and every read through it
const Engine* g_engine = nullptr;  // the engine the commands read, or none
std::once_flag g_registered;

constexpr const char* kSocketName = "dpdk_telemetry.v2";

/// Telemetry's dictionary keys allow letters, digits, '_' and '/' only.
std::string key(std::string_view name) {
    std::string k(name.substr(0, RTE_TEL_MAX_STRING_LEN - 1));
    for (char& c : k)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/')) c = '_';
    return k;
}

/// A dictionary of counters, added to `d` under `name` (telemetry frees it).
class Counters {
  public:
    Counters() : data_(rte_tel_data_alloc()) {
        if (data_) rte_tel_data_start_dict(data_);
    }
    ~Counters() { rte_tel_data_free(data_); }  // only when never added
    Counters& add(const char* name, uint64_t value) {
        if (data_) rte_tel_data_add_dict_u64(data_, name, value);
        return *this;
    }
    void add_to(rte_tel_data* d, const std::string& name) {
        if (data_ && rte_tel_data_add_dict_container(d, key(name).c_str(), data_, 0) == 0)
            data_ = nullptr;
    }

  private:
    rte_tel_data* data_;
};

int answer_error(rte_tel_data* d, const std::string& text) {
    rte_tel_data_start_dict(d);
    rte_tel_data_add_dict_string(d, "error", text.substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
    return 0;
}

/// The worker a command's parameter names ("/pathscope/stages,1"), or none
/// for the totals; false (with the error answered) for a bad parameter.
bool worker_param(const char* params, const EngineSnapshot& s, std::optional<unsigned>& worker,
                  rte_tel_data* d) {
    if (!params || !*params) return true;
    unsigned w = 0;
    const char* end = params + std::strlen(params);
    const auto [p, ec] = std::from_chars(params, end, w);
    const size_t workers = std::max<size_t>(1, s.workers.size());
    if (ec != std::errc() || p != end || w >= workers) {
        answer_error(d, "no worker '" + std::string(params) + "': this engine has " +
                            std::to_string(workers) + " (give 0 to " +
                            std::to_string(workers - 1) + ", or nothing for the totals)");
        return false;
    }
    worker = w;
    return true;
}

void stages(const EngineSnapshot& s, std::optional<unsigned> worker, rte_tel_data* d) {
    const auto& list = worker && !s.workers.empty() ? s.workers[*worker].stages : s.stages;
    rte_tel_data_start_dict(d);
    for (const StageSnapshot& st : list)
        Counters()
            .add("calls", st.calls)
            .add("packets", st.packets)
            .add("cycles", st.cycles)
            .add("idle_calls", st.idle_calls)
            .add("idle_cycles", st.idle_cycles)
            .add("cycles_per_packet", st.packets ? (st.cycles + st.packets / 2) / st.packets : 0)
            .add_to(d, st.name);
}

void queues(const EngineSnapshot& s, rte_tel_data* d) {
    rte_tel_data_start_dict(d);
    for (const QueueSnapshot& q : s.queues) {
        Counters c;
        c.add("worker", q.worker).add("packets", q.packets).add("bytes", q.bytes).add("bursts", q.bursts);
        if (q.rx)
            c.add("empty_polls", q.empty_polls);
        else
            c.add("full", q.full);
        c.add_to(d, q.port + (q.rx ? "/rx/" : "/tx/") + std::to_string(q.queue));
    }
}

void ledger(const EngineSnapshot& s, std::optional<unsigned> worker, rte_tel_data* d) {
    const Ledger& l = worker && !s.workers.empty() ? s.workers[*worker].ledger : s.ledger;
    rte_tel_data_start_dict(d);
    rte_tel_data_add_dict_u64(d, "received", l.received);
    rte_tel_data_add_dict_u64(d, "delivered", l.delivered);
    rte_tel_data_add_dict_u64(d, "forwarded", l.forwarded);
    rte_tel_data_add_dict_u64(d, "replied", l.replied);
    rte_tel_data_add_dict_u64(d, "dropped", l.total_drops());
    rte_tel_data_add_dict_u64(d, "sends", l.sends);
    rte_tel_data_add_dict_u64(d, "sent", l.sent);
    rte_tel_data_add_dict_u64(d, "send_dropped", l.total_send_drops());
    Counters drops, send_drops;
    for (unsigned r = 0; r < kDropSlots; ++r) {
        if (!l.drops[r] && !l.send_drops[r]) continue;
        const std::string name = drop_slot_name(r);  // plugin stages' reasons too
        if (l.drops[r]) drops.add(name.c_str(), l.drops[r]);
        if (l.send_drops[r]) send_drops.add(name.c_str(), l.send_drops[r]);
    }
    drops.add_to(d, "drops");
    send_drops.add_to(d, "send_drops");
}

void workers(const EngineSnapshot& s, rte_tel_data* d) {
    rte_tel_data_start_dict(d);
    rte_tel_data_add_dict_u64(d, "workers", std::max<size_t>(1, s.workers.size()));
    rte_tel_data_add_dict_u64(d, "tsc_hz", s.tsc_hz);
    for (const WorkerSnapshot& w : s.workers)
        Counters()
            .add("lcore", w.lcore)
            .add("walks", w.walks)
            .add("idle_walks", w.idle_walks)
            .add("received", w.ledger.received)
            .add_to(d, std::to_string(w.worker));
}

enum class Command { stages, queues, ledger, workers };

/// Reads the current engine under the lock (the TelemetrySource's
/// destructor waits for it) and answers `what`.
template <Command what>
int handle(const char*, const char* params, rte_tel_data* d) noexcept {
    try {
        const std::lock_guard lock(g_mutex);
        if (!g_engine)
            return answer_error(d, "no pathscope engine is running (between trials, or the run "
                                   "has not started)");
        const EngineSnapshot s = g_engine->snapshot(false);
        std::optional<unsigned> worker;
        switch (what) {
            case Command::stages:
                if (worker_param(params, s, worker, d)) stages(s, worker, d);
                break;
            case Command::ledger:
                if (worker_param(params, s, worker, d)) ledger(s, worker, d);
                break;
            case Command::queues: queues(s, d); break;
            case Command::workers: workers(s, d); break;
        }
        return 0;
    } catch (const std::exception& e) {
        return answer_error(d, e.what());
    } catch (...) {
        return -1;
    }
}

/// Help texts stay under RTE_TEL_MAX_STRING_LEN (128): telemetry refuses longer ones.
void register_commands() {
    rte_telemetry_register_cmd("/pathscope/stages", handle<Command::stages>,
                               "Per stage: calls, packets, cycles, idle calls/cycles, cycles per "
                               "packet. Parameter: worker (default: all)");
    rte_telemetry_register_cmd("/pathscope/queues", handle<Command::queues>,
                               "Per port/rx|tx/queue: worker, packets, bytes, bursts, empty polls "
                               "or full. Takes no parameters");
    rte_telemetry_register_cmd("/pathscope/ledger", handle<Command::ledger>,
                               "Received, delivered, forwarded, replied, drops by reason, sends, "
                               "sent. Parameter: worker (default: all)");
    rte_telemetry_register_cmd("/pathscope/workers", handle<Command::workers>,
                               "Worker count, TSC Hz; per worker: lcore, walks, idle walks, "
                               "received. Takes no parameters");
}

/// The pid that the telemetry socket at `path` announces on connect, or 0.
long socket_pid(const std::string& path) {
    const int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    if (fd < 0) return 0;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    long pid = 0;
    timeval timeout{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
        char buf[1024];
        const ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
        if (n > 0) {
            const std::string_view reply(buf, static_cast<size_t>(n));
            const size_t at = reply.find("\"pid\":");
            if (at != std::string_view::npos) {
                size_t p = at + 6;
                while (p < reply.size() && reply[p] == ' ') ++p;
                std::from_chars(reply.data() + p, reply.data() + reply.size(), pid);
            }
        }
    }
    close(fd);
    return pid;
}

}  // namespace

TelemetrySource::TelemetrySource(const Engine& engine) {
    std::call_once(g_registered, register_commands);
    const std::lock_guard lock(g_mutex);
    previous_ = g_engine;
    g_engine = &engine;
}

TelemetrySource::~TelemetrySource() {
    const std::lock_guard lock(g_mutex);
    g_engine = previous_;
}

std::string telemetry_socket_path() {
    if (!eal_ready()) return "";
    std::call_once(g_registered, register_commands);
    namespace fs = std::filesystem;
    const fs::path dir = rte_eal_get_runtime_dir();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(kSocketName, 0) != 0) continue;
        if (socket_pid(entry.path().string()) == static_cast<long>(getpid()))
            return entry.path().string();
    }
    return "";
}

std::string telemetry_client_command(const std::string& socket_path) {
    namespace fs = std::filesystem;
    const fs::path p(socket_path);
    std::string cmd = "dpdk-telemetry.py -f " + p.parent_path().filename().string();
    const std::string name = p.filename().string();
    if (const size_t colon = name.rfind(':'); colon != std::string::npos)
        cmd += " -i " + name.substr(colon + 1);
    return cmd;
}

}  // namespace pathscope::engine
