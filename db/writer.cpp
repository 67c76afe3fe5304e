#include "db/writer.h"

#include <chrono>
#include <ctime>
#include <initializer_list>
#include <random>
#include <sstream>

#include "db/schema.h"

namespace pathscope::db {

size_t Batch::rows() const {
    size_t n = trials.size() + intervals.size() + stages.size() + queues.size() + drops.size() +
               perf.size() + stacks.size() + traces.size() + facts.size();
    for (const auto& h : histograms) n += 1 + h.buckets.size();
    return n;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string new_uuid() {
    std::random_device rd;
    std::mt19937_64 rng(
        (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(rng()),
                  static_cast<unsigned long long>(rng()));
    return buf;
}

namespace {

// Every INSERT names its columns, so that a migration that adds a column
// (with a default) never shifts what a statement binds.
std::string insert_sql(const char* verb, const char* table,
                       std::initializer_list<const char*> columns) {
    std::string cols, params;
    int i = 0;
    for (const char* c : columns) {
        cols += (i ? ", " : "") + std::string(c);
        ++i;
        params += (i > 1 ? ", ?" : "?") + std::to_string(i);
    }
    return std::string(verb) + " INTO " + table + " (" + cols + ") VALUES (" + params + ")";
}

}  // namespace

struct BatchWriter::Impl {
    Database& db;
    Statement run, status, trial, interval, stage, queue, drop, hist, bucket, perf, frame_ins,
        frame_sel, stack_ins, stack_sel, sample, trace, fact;
    // Interned ids seen in committed transactions, and in the open one.
    std::map<std::pair<std::string, std::string>, int64_t> frames, fresh_frames;
    std::map<std::pair<int64_t, int64_t>, int64_t> stacks, fresh_stacks;

    explicit Impl(Database& d)
        : db(d),
          run(d.prepare(insert_sql(
              "INSERT", "runs",
              {"uuid", "label", "kind", "status", "scenario_path", "scenario_text", "settings",
               "host", "cpu_model", "tsc_hz", "engine_version", "git_revision", "pid",
               "started_at", "ended_at", "trials", "trial_seconds", "interval_seconds", "pmu",
               "note", "experiment", "cell"}))),
          status(d.prepare("UPDATE runs SET status = ?2, ended_at = ?3, note = ?4 WHERE id = ?1")),
          trial(d.prepare(insert_sql(
              "INSERT OR REPLACE", "trials",
              {"run_id", "trial", "seconds", "received", "delivered", "forwarded", "replied",
               "dropped", "sent", "rx_pps", "forwarded_pps", "delivered_pps", "window_received",
               "walks", "idle_walks", "sends", "sent_pps", "window_sent", "route_lookups",
               "source_selections"}))),
          interval(d.prepare(insert_sql("INSERT OR REPLACE", "intervals",
                                        {"run_id", "trial", "seq", "t", "received", "delivered",
                                         "forwarded", "replied", "dropped", "sent"}))),
          stage(d.prepare(insert_sql("INSERT OR REPLACE", "stage_counters",
                                     {"run_id", "trial", "seq", "stage", "ord", "calls",
                                      "packets", "cycles", "idle_calls", "idle_cycles"}))),
          queue(d.prepare(insert_sql("INSERT OR REPLACE", "queue_counters",
                                     {"run_id", "trial", "seq", "port", "queue", "dir", "packets",
                                      "bytes", "bursts", "empty_polls", "full"}))),
          drop(d.prepare(insert_sql("INSERT OR REPLACE", "drops",
                                    {"run_id", "trial", "path", "reason", "stage", "packets"}))),
          hist(d.prepare(insert_sql(
              "INSERT OR REPLACE", "histograms",
              {"run_id", "trial", "kind", "subject", "unit", "count", "sum", "min", "max"}))),
          bucket(d.prepare(insert_sql("INSERT OR REPLACE", "histogram_buckets",
                                      {"run_id", "trial", "kind", "subject", "bucket", "count"}))),
          perf(d.prepare(insert_sql("INSERT OR REPLACE", "perf_counters",
                                    {"run_id", "trial", "event", "supported", "value",
                                     "time_enabled", "time_running", "note"}))),
          frame_ins(d.prepare("INSERT OR IGNORE INTO frames (symbol, module) VALUES (?1, ?2)")),
          frame_sel(d.prepare("SELECT id FROM frames WHERE symbol = ?1 AND module = ?2")),
          stack_ins(d.prepare("INSERT OR IGNORE INTO stacks (parent, frame) VALUES (?1, ?2)")),
          stack_sel(d.prepare("SELECT id FROM stacks WHERE parent = ?1 AND frame = ?2")),
          sample(d.prepare(insert_sql("INSERT", "stack_samples",
                                      {"run_id", "trial", "event", "stack", "weight", "seq"}) +
                           " ON CONFLICT DO UPDATE SET weight = weight + excluded.weight")),
          trace(d.prepare(insert_sql("INSERT OR REPLACE", "packet_traces",
                                     {"run_id", "trial", "seq", "t", "port", "wire_len", "data",
                                      "stage_cycles", "outcome"}))),
          fact(d.prepare(insert_sql("INSERT OR REPLACE", "facts", {"run_id", "key", "value"}))) {}

    int64_t intern_frame(const Frame& f) {
        const auto key = std::make_pair(f.symbol, f.module);
        if (auto it = frames.find(key); it != frames.end()) return it->second;
        if (auto it = fresh_frames.find(key); it != fresh_frames.end()) return it->second;
        frame_ins.bind(1, f.symbol).bind(2, f.module).run();
        frame_sel.bind(1, f.symbol).bind(2, f.module);
        frame_sel.step();
        const int64_t id = frame_sel.i64(0);
        frame_sel.reset();
        fresh_frames.emplace(key, id);
        return id;
    }

    int64_t intern_stack(int64_t parent, int64_t frame) {
        const auto key = std::make_pair(parent, frame);
        if (auto it = stacks.find(key); it != stacks.end()) return it->second;
        if (auto it = fresh_stacks.find(key); it != fresh_stacks.end()) return it->second;
        stack_ins.bind(1, parent).bind(2, frame).run();
        stack_sel.bind(1, parent).bind(2, frame);
        stack_sel.step();
        const int64_t id = stack_sel.i64(0);
        stack_sel.reset();
        fresh_stacks.emplace(key, id);
        return id;
    }

    void write_rows(int64_t id, const Batch& b);
};

BatchWriter::BatchWriter(Database& db) : impl_(std::make_unique<Impl>(db)) {}
BatchWriter::~BatchWriter() = default;

int64_t BatchWriter::insert_run(RunInfo& r) {
    if (r.uuid.empty()) r.uuid = new_uuid();
    if (r.started_at.empty()) r.started_at = utc_now();
    Statement& s = impl_->run;
    s.bind(1, r.uuid).bind(2, r.label).bind(3, r.kind).bind(4, r.status).bind(5, r.scenario_path);
    s.bind(6, r.scenario_text).bind(7, r.settings).bind(8, r.host).bind(9, r.cpu_model);
    s.bind(10, r.tsc_hz).bind(11, r.engine_version).bind(12, r.git_revision).bind(13, r.pid);
    s.bind(14, r.started_at).bind(15, r.ended_at).bind(16, r.trials).bind(17, r.trial_seconds);
    s.bind(18, r.interval_seconds).bind(19, r.pmu).bind(20, r.note).bind(21, r.experiment);
    s.bind(22, r.cell);
    Transaction tx(impl_->db);
    s.run();
    r.id = impl_->db.last_insert_id();
    tx.commit();
    return r.id;
}

void BatchWriter::set_status(int64_t run_id, const std::string& status, const std::string& note) {
    Transaction tx(impl_->db);
    impl_->status.bind(1, run_id).bind(2, status).bind(3, utc_now()).bind(4, note).run();
    tx.commit();
}

void BatchWriter::write(int64_t id, const Batch& b) { write(id, std::vector<const Batch*>{&b}); }

void BatchWriter::write(int64_t id, const std::vector<const Batch*>& batches) {
    Impl& m = *impl_;
    // Interned ids become visible to later transactions only once this one commits.
    m.fresh_frames.clear();
    m.fresh_stacks.clear();
    Transaction tx(m.db);
    for (const Batch* b : batches) m.write_rows(id, *b);
    tx.commit();
    m.frames.merge(m.fresh_frames);
    m.stacks.merge(m.fresh_stacks);
}

void BatchWriter::Impl::write_rows(int64_t id, const Batch& b) {
    Impl& m = *this;
    for (const auto& t : b.trials)
        m.trial.bind(1, id)
            .bind(2, t.trial)
            .bind(3, t.seconds)
            .bind(4, t.received)
            .bind(5, t.delivered)
            .bind(6, t.forwarded)
            .bind(7, t.replied)
            .bind(8, t.dropped)
            .bind(9, t.sent)
            .bind(10, t.rx_pps)
            .bind(11, t.forwarded_pps)
            .bind(12, t.delivered_pps)
            .bind(13, t.window_received)
            .bind(14, t.walks)
            .bind(15, t.idle_walks)
            .bind(16, t.sends)
            .bind(17, t.sent_pps)
            .bind(18, t.window_sent)
            .bind(19, t.route_lookups)
            .bind(20, t.source_selections)
            .run();
    for (const auto& v : b.intervals)
        m.interval.bind(1, id)
            .bind(2, v.trial)
            .bind(3, v.seq)
            .bind(4, v.t)
            .bind(5, v.received)
            .bind(6, v.delivered)
            .bind(7, v.forwarded)
            .bind(8, v.replied)
            .bind(9, v.dropped)
            .bind(10, v.sent)
            .run();
    for (const auto& s : b.stages)
        m.stage.bind(1, id)
            .bind(2, s.trial)
            .bind(3, s.seq)
            .bind(4, s.stage)
            .bind(5, s.ord)
            .bind(6, s.calls)
            .bind(7, s.packets)
            .bind(8, s.cycles)
            .bind(9, s.idle_calls)
            .bind(10, s.idle_cycles)
            .run();
    for (const auto& q : b.queues)
        m.queue.bind(1, id)
            .bind(2, q.trial)
            .bind(3, q.seq)
            .bind(4, q.port)
            .bind(5, q.queue)
            .bind(6, q.dir)
            .bind(7, q.packets)
            .bind(8, q.bytes)
            .bind(9, q.bursts)
            .bind(10, q.empty_polls)
            .bind(11, q.full)
            .run();
    for (const auto& d : b.drops)
        m.drop.bind(1, id)
            .bind(2, d.trial)
            .bind(3, d.path)
            .bind(4, d.reason)
            .bind(5, d.stage)
            .bind(6, d.packets)
            .run();
    for (const auto& h : b.histograms) {
        m.hist.bind(1, id)
            .bind(2, h.trial)
            .bind(3, h.kind)
            .bind(4, h.subject)
            .bind(5, h.unit)
            .bind(6, h.count)
            .bind(7, h.sum)
            .bind(8, h.min)
            .bind(9, h.max)
            .run();
        for (const auto& [bucket, count] : h.buckets)
            m.bucket.bind(1, id)
                .bind(2, h.trial)
                .bind(3, h.kind)
                .bind(4, h.subject)
                .bind(5, bucket)
                .bind(6, count)
                .run();
    }
    for (const auto& p : b.perf)
        m.perf.bind(1, id)
            .bind(2, p.trial)
            .bind(3, p.event)
            .bind(4, p.supported ? 1 : 0)
            .bind(5, p.value)
            .bind(6, p.time_enabled)
            .bind(7, p.time_running)
            .bind(8, p.note)
            .run();
    for (const auto& st : b.stacks) {
        int64_t parent = 0;
        for (const auto& f : st.frames) parent = m.intern_stack(parent, m.intern_frame(f));
        if (parent == 0) continue;  // no frames: nothing to attribute the weight to
        m.sample.bind(1, id)
            .bind(2, st.trial)
            .bind(3, st.event)
            .bind(4, parent)
            .bind(5, st.weight)
            .bind(6, st.seq)
            .run();
    }
    for (const auto& t : b.traces) {
        std::string cycles;
        for (const auto& [stage, c] : t.stage_cycles) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%s%s=%.1f", cycles.empty() ? "" : " ", stage.c_str(),
                          c);
            cycles += buf;
        }
        m.trace.bind(1, id)
            .bind(2, t.trial)
            .bind(3, t.seq)
            .bind(4, t.t)
            .bind(5, t.port)
            .bind(6, t.wire_len)
            .bind_blob(7, t.data.data(), t.data.size())
            .bind(8, cycles)
            .bind(9, t.outcome)
            .run();
    }
    for (const auto& [k, v] : b.facts) m.fact.bind(1, id).bind(2, k).bind(3, v).run();
}

RunWriter::RunWriter(const std::string& path, RunInfo run) : path_(path), run_(std::move(run)) {
    db_ = open_store(path, Database::Mode::read_write);
    writer_ = std::make_unique<BatchWriter>(*db_);
    writer_->insert_run(run_);
    thread_ = std::thread([this] { loop(); });
}

RunWriter::~RunWriter() {
    {
        std::lock_guard lk(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void RunWriter::submit(Batch batch) {
    {
        std::lock_guard lk(mu_);
        queue_.push_back(Job{std::move(batch), std::nullopt});
    }
    cv_.notify_one();
}

void RunWriter::flush() {
    std::unique_lock lk(mu_);
    idle_cv_.wait(lk, [&] { return (queue_.empty() && !busy_) || error_; });
    if (error_) throw DbError(*error_, SQLITE_ERROR);
}

void RunWriter::finish(const std::string& status, const std::string& note) {
    {
        std::lock_guard lk(mu_);
        queue_.push_back(Job{{}, std::make_pair(status, note)});
    }
    cv_.notify_one();
    flush();
}

std::optional<std::string> RunWriter::error() const {
    std::lock_guard lk(mu_);
    return error_;
}

void RunWriter::loop() {
    // Group commit: everything queued while the last transaction ran goes
    // into the next one, up to a bound that keeps each transaction short.
    constexpr size_t kMaxGroup = 256;
    std::unique_lock lk(mu_);
    for (;;) {
        cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty() || error_) {
            queue_.clear();
            idle_cv_.notify_all();
            if (stop_) return;
            continue;
        }
        std::vector<Job> group;
        while (!queue_.empty() && group.size() < kMaxGroup) {
            group.push_back(std::move(queue_.front()));
            queue_.pop_front();
            if (group.back().status) break;  // a final status goes after its batches
        }
        busy_ = true;
        lk.unlock();
        std::optional<std::string> err;
        try {
            std::vector<const Batch*> batches;
            uint64_t rows = 0;
            for (const auto& j : group)
                if (!j.batch.empty()) {
                    batches.push_back(&j.batch);
                    rows += j.batch.rows();
                }
            if (!batches.empty()) {
                writer_->write(run_.id, batches);
                rows_ += rows;
                batches_ += batches.size();
            }
            if (group.back().status)
                writer_->set_status(run_.id, group.back().status->first,
                                    group.back().status->second);
        } catch (const std::exception& e) {
            err = e.what();
        }
        lk.lock();
        busy_ = false;
        if (err && !error_) error_ = err;
        if (queue_.empty() || error_) idle_cv_.notify_all();
    }
}

}  // namespace pathscope::db
