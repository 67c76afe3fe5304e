#include "db/writer.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iterator>
#include <random>
#include <sstream>

#include "db/schema.h"
#include "db/server_store.h"
#include "db/bulk_rows.h"
#include "db/table_sql.h"

namespace pathscope::db {

size_t Batch::rows() const {
    size_t n = trials.size() + intervals.size() + stages.size() + edges.size() + queues.size() +
               drops.size() +
               perf.size() + stacks.size() + traces.size() + facts.size() +
               events.size() + worker_stages.size() + worker_edges.size() + worker_trials.size() +
               threads.size();
    for (const auto& h : histograms) n += 1 + h.buckets.size();
    for (const auto& h : worker_histograms) n += 1 + h.buckets.size();
    return n;
}

void Batch::append(Batch&& o) {
    std::apply(
        [&](auto&... dst) {
            std::apply(
                [&](auto&... src) {
                    (dst.insert(dst.end(), std::make_move_iterator(src.begin()),
                                std::make_move_iterator(src.end())),
                     ...);
                },
                o.parts());
        },
        parts());
}

static_assert(std::tuple_size_v<decltype(std::declval<Batch&>().parts())> == Batch::kParts);

Batch::Sizes Batch::sizes() const {
    return std::apply([](const auto&... part) { return Sizes{part.size()...}; }, parts());
}

void Batch::truncate(const Sizes& to) {
    size_t i = 0;
    std::apply(
        [&](auto&... part) {
            ((part.erase(part.begin() + static_cast<std::ptrdiff_t>(std::min(to[i], part.size())),
                         part.end()),
              ++i),
             ...);
        },
        parts());
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

struct BatchWriter::Impl {
    Database& db;
    Statement run, status, frame_ins, frame_sel, stack_ins, stack_sel;
    // Each table's rows, a batch at a time (one statement a table a batch
    // on a server store; see db/bulk_rows.h).
    BulkRows<TrialRow> trial;
    BulkRows<IntervalRow> interval;
    BulkRows<StageRow> stage;
    BulkRows<EdgeRow> edge;
    BulkRows<QueueRow> queue;
    BulkRows<DropRow> drop;
    BulkRows<HistogramRow> hist;
    BulkRows<BucketRow> bucket;
    BulkRows<PerfCounterRow> perf;
    BulkRows<SampleRow> sample;
    BulkRows<PacketTraceRow> trace;
    BulkRows<FactRow> fact;
    BulkRows<EventRow> event;
    BulkRows<WorkerTrialRow> worker_trial;
    BulkRows<ThreadRow> thread;
    // Interned ids seen in committed transactions, and in the open one.
    std::map<std::pair<std::string, std::string>, int64_t> frames, fresh_frames;
    std::map<std::pair<int64_t, int64_t>, int64_t> stacks, fresh_stacks;

    template <typename Row>
    static BulkRows<Row> replacing(Database& d, const Table<Row>& t) {
        return BulkRows<Row>(d, t, insert_sql(t, OnConflict::replace, d.backend()));
    }

    explicit Impl(Database& d)
        : db(d),
          run(d.prepare(insert_sql(tables::runs()) + " RETURNING id")),
          status(d.prepare("UPDATE runs SET status = ?2, ended_at = ?3, note = ?4 WHERE id = ?1")),
          frame_ins(d.prepare(insert_sql(tables::frames(), OnConflict::ignore, d.backend()))),
          frame_sel(d.prepare("SELECT id FROM frames WHERE symbol = ?1 AND module = ?2")),
          stack_ins(d.prepare(insert_sql(tables::stacks(), OnConflict::ignore, d.backend()))),
          stack_sel(d.prepare("SELECT id FROM stacks WHERE parent = ?1 AND frame = ?2")),
          trial(replacing(d, tables::trials())),
          interval(replacing(d, tables::intervals())),
          stage(replacing(d, tables::stage_counters())),
          edge(replacing(d, tables::edge_counters())),
          queue(replacing(d, tables::queue_counters())),
          drop(replacing(d, tables::drops())),
          hist(replacing(d, tables::histograms())),
          bucket(replacing(d, tables::histogram_buckets())),
          perf(replacing(d, tables::perf_counters())),
          sample(d, tables::stack_samples(), sample_insert_sql(),
                 [](SampleRow& into, const SampleRow& more) { into.weight += more.weight; }),
          trace(replacing(d, tables::packet_traces())),
          fact(replacing(d, tables::facts())),
          event(replacing(d, tables::trial_events())),
          worker_trial(replacing(d, tables::worker_trials())),
          thread(replacing(d, tables::trial_threads())) {}

    int64_t intern_frame(const Frame& f) {
        const auto key = std::make_pair(f.symbol, f.module);
        if (auto it = frames.find(key); it != frames.end()) return it->second;
        if (auto it = fresh_frames.find(key); it != fresh_frames.end()) return it->second;
        insert_row(frame_ins, tables::frames(), 0, FrameRow{0, f.symbol, f.module});
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
        insert_row(stack_ins, tables::stacks(), 0, StackNodeRow{0, parent, frame});
        stack_sel.bind(1, parent).bind(2, frame);
        stack_sel.step();
        const int64_t id = stack_sel.i64(0);
        stack_sel.reset();
        fresh_stacks.emplace(key, id);
        return id;
    }

    void write_rows(int64_t id, const Batch& b);
    /// Sends the rows gathered by write_rows (a statement a table).
    void flush_rows();
};

BatchWriter::BatchWriter(Database& db) : impl_(std::make_unique<Impl>(db)) {}
BatchWriter::~BatchWriter() = default;

int64_t BatchWriter::insert_run(RunInfo& r) {
    if (r.uuid.empty()) r.uuid = new_uuid();
    if (r.started_at.empty()) r.started_at = utc_now();
    Transaction tx(impl_->db);
    impl_->run.reset();
    bind_row(impl_->run, tables::runs(), 0, r);
    impl_->run.step();
    r.id = impl_->run.i64(0);
    impl_->run.reset();
    if (r.status == "running" && impl_->db.backend() == Backend::postgres)
        impl_->db.exec(hold_run_sql(r.id));
    tx.commit();
    return r.id;
}

void BatchWriter::set_status(int64_t run_id, const std::string& status, const std::string& note) {
    Transaction tx(impl_->db);
    impl_->status.bind(1, run_id).bind(2, status).bind(3, utc_now()).bind(4, note).run();
    tx.commit();
    // The run's last write. Copy the WAL into the store file now: SQLite
    // ignores a checkpoint that fails when the connection closes, so a disk
    // that fails here would go unreported; and, unless a reader holds it back,
    // the file alone then holds the whole run. PASSIVE never waits for a
    // reader (the GUI's live view).
    if (impl_->db.backend() != Backend::sqlite) return;
    try {
        impl_->db.exec("PRAGMA wal_checkpoint(PASSIVE)");
    } catch (const DbError& e) {
        throw DbError(std::string(e.what()) +
                          "; the run itself was committed whole, to the store's -wal file, "
                          "which SQLite copies in when it next opens the store",
                      e.code());
    }
}

void BatchWriter::write(int64_t id, const Batch& b) { write(id, std::vector<const Batch*>{&b}); }

void BatchWriter::write(int64_t id, const std::vector<const Batch*>& batches) {
    Impl& m = *impl_;
    // Interned ids become visible to later transactions only once this one commits.
    m.fresh_frames.clear();
    m.fresh_stacks.clear();
    Transaction tx(m.db);
    for (const Batch* b : batches) m.write_rows(id, *b);
    m.flush_rows();
    tx.commit();
    m.frames.merge(m.fresh_frames);
    m.stacks.merge(m.fresh_stacks);
}

void BatchWriter::Impl::write_rows(int64_t id, const Batch& b) {
    for (const auto& t : b.trials) trial.add(id, t);
    for (const auto& v : b.intervals) interval.add(id, v);
    // A run of several workers is stored per worker; readers sum the
    // workers (db/worker_rows.h), so the sums themselves are not stored.
    for (const auto& s : b.worker_stages.empty() ? b.stages : b.worker_stages) stage.add(id, s);
    for (const auto& e : b.worker_stages.empty() ? b.edges : b.worker_edges) edge.add(id, e);
    for (const auto& w : b.worker_trials) worker_trial.add(id, w);
    for (const auto& t : b.threads) thread.add(id, t);
    for (const auto& q : b.queues) queue.add(id, q);
    for (const auto& d : b.drops) drop.add(id, d);
    const auto write_histogram = [&](const HistogramRow& h) {
        hist.add(id, h);
        for (const auto& [index, count] : h.buckets)
            bucket.add(id, BucketRow{h.trial, h.kind, h.subject, index, count, h.worker});
    };
    for (const auto& h : b.histograms)
        if (b.worker_histograms.empty() || h.kind != kStageCallCycles) write_histogram(h);
    for (const auto& h : b.worker_histograms) write_histogram(h);
    for (const auto& p : b.perf) perf.add(id, p);
    for (const auto& st : b.stacks) {
        int64_t parent = 0;
        for (const auto& f : st.frames) parent = intern_stack(parent, intern_frame(f));
        if (parent == 0) continue;  // no frames: nothing to attribute the weight to
        sample.add(id, SampleRow{st.trial, st.seq, st.event, parent, st.weight});
    }
    for (const auto& t : b.traces) trace.add(id, t);
    for (const auto& f : b.facts) fact.add(id, f);
    for (const auto& e : b.events) event.add(id, e);
}

void BatchWriter::Impl::flush_rows() {
    trial.flush(), interval.flush(), stage.flush(), edge.flush(), worker_trial.flush();
    queue.flush(), drop.flush(), hist.flush(), bucket.flush(), perf.flush(), sample.flush();
    trace.flush(), fact.flush(), event.flush(), thread.flush();
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
