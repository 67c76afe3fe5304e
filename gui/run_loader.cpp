#include "gui/run_loader.h"
#include "gui/display_text.h"

#include <sqlite3.h>

#include <algorithm>
#include <utility>

#include "analysis/figures/run_metrics.h"
#include "analysis/figures/running_trial.h"
#include "analysis/verdicts/sequential.h"
#include "common/sole_owner.h"
#include "db/connection.h"
#include "db/schema.h"

namespace pathscope::gui {

namespace {

// A viewer never needs a stack's frames row by row: the trees are built
// from the interned stacks.
const db::LoadOptions kViewer{.expand_stacks = false};

std::shared_ptr<const analysis::FlameDiff> self_diff(const analysis::FlameTree& t) {
    return std::make_shared<analysis::FlameDiff>(analysis::diff_trees(t, t));
}

}  // namespace

StoreListing list_store(const std::string& path) {
    StoreListing out;
    try {
        auto db = db::open_store(path, db::Database::Mode::read_only);
        out.runs = db::list_runs_brief(*db);
        auto recorded = db::trials_recorded(*db);
        for (const auto& r : out.runs) out.trials_recorded.push_back(recorded[r.id]);
    } catch (const std::exception& e) {
        out.error = display_lines(e.what());
        out.runs.clear();
        out.trials_recorded.clear();
    }
    return out;
}

namespace {
void set_path(LoadedRun& out, analysis::PathGraph g, const db::RunData& run) {
    const auto balance = analysis::path_balance(g, run);
    out.path_balanced = std::all_of(balance.begin(), balance.end(), [](const auto& b) { return b.ok(); });
    out.path = std::make_shared<analysis::PathGraph>(std::move(g));
}
}  // namespace

LoadedRun compute_pages(std::shared_ptr<const db::RunData> data,
                        const std::function<bool()>& keep_going,
                        analysis::GrowingStackTree* growing, bool call_views) {
    const auto step = [&] {
        if (keep_going && !keep_going()) throw LoadCancelled{};
    };
    LoadedRun out;
    // A running trial's intervals so far stand in for the totals it has not
    // written yet, so every page shows a running run as it goes.
    db::Batch running = analysis::running_trial_rows(*data);
    if (!running.empty()) {
        auto with_running = std::make_shared<db::RunData>(*data);
        with_running->rows.append(std::move(running));
        data = std::move(with_running);
    }
    out.data = data;
    const db::RunData& shown = *data;
    // The sampled stacks' tree, built once for the summary, the flame graph
    // and the stack views; a followed run's grown by what it gained.
    analysis::GrowingStackTree once;
    if (!growing) growing = &once;
    const analysis::FlameTree* stacks = growing->update(shown);
    const std::string event = growing->event();
    step();
    analysis::SummaryOptions opt;
    opt.stacks = stacks;
    opt.stack_event = &event;
    opt.stack_samples = growing->samples();
    out.summary = analysis::summarize_run(shown, opt);
    step();
    out.stages = self_diff(analysis::stage_tree(shown));
    set_path(out, analysis::path_graph(shown, out.summary), shown);
    step();
    if (stacks) {
        out.stacks = growing->own_diff();
        out.stack_event = display_text(event);
        step();
        if (call_views)
            out.stack_views = analysis::build_call_views(*stacks);
        else
            out.call_views_left_out = true;
        step();
    }
    auto series = std::make_shared<analysis::TimeSeries>(analysis::time_series(shown));
    if (!series->points.empty()) {
        const double end = series->points.back().t1;
        out.series_range =
            self_diff(analysis::stage_tree_in_range(shown, 0, end, &out.series_intervals));
    }
    out.series = std::move(series);
    step();
    out.traces = trace_rows(data);
    return out;
}

LoadedRun load_run(const std::string& path, int64_t id) {
    try {
        std::shared_ptr<db::RunData> run;
        {
            auto db = db::open_store(path, db::Database::Mode::read_only);
            run = std::make_shared<db::RunData>(db::load_run(*db, id, kViewer));
        }  // the connection closes here: no read transaction outlives the load
        return compute_pages(std::move(run));
    } catch (const std::exception& e) {
        LoadedRun out;
        out.error = display_lines(e.what());
        return out;
    }
}

void add_comparison(LoadedRun& out, const db::RunData& base) {
    set_path(out, analysis::path_graph_compare(base, *out.data), *out.data);
    // Judged at the level the runs' experiment decided at (an --until-decided
    // run), as `pathscope report` and `compare` judge them.
    analysis::ReportOptions options;
    options.confidence = analysis::judged_confidence(base, *out.data, options.confidence);
    out.report = std::make_shared<analysis::Report>(
        analysis::build_report(base, out.data.get(), options));
    const std::string event = out.stack_event.toStdString();
    if (!event.empty() && analysis::main_stack_event(base) == event) {
        analysis::DiffOptions opt;
        opt.confidence = options.confidence;
        out.stack_views = analysis::build_call_views(analysis::stack_tree(base, event),
                                                     analysis::stack_tree(*out.data, event), opt);
    }
}

LoadedRun load_pair(const std::string& path, int64_t base, int64_t cand) {
    LoadedRun out = load_run(path, cand);
    if (!out.error.isEmpty()) return out;
    try {
        db::RunData b;
        {
            auto db = db::open_store(path, db::Database::Mode::read_only);
            b = db::load_run(*db, base, kViewer);
        }
        add_comparison(out, b);
    } catch (const std::exception& e) {
        out.error = display_lines(e.what());
    }
    return out;
}

StoreReader::StoreReader(QObject* parent) : QObject(parent) {
    qRegisterMetaType<StoreListing>();
    qRegisterMetaType<LoadedRun>();
    qRegisterMetaType<analysis::CallViews>();
}

StoreReader::~StoreReader() = default;

void StoreReader::want(unsigned generation) {
    wanted_.store(generation);
    // A read under way for an older ask stops now, not at its end. A read
    // for this very ask (it may have started already) is left alone.
    const std::lock_guard lock(db_mutex_);
    const unsigned reading = reading_.load();
    if (db_ && reading != kIdle && reading != generation) {
        interrupt_sent_ = true;
        db_->interrupt();
    }
}

namespace {
/// SQLite's primary result code for a store error (SQLITE_ERROR for others).
int store_code(const std::exception& e) {
    const auto* d = dynamic_cast<const db::DbError*>(&e);
    return d ? d->code() & 0xff : SQLITE_ERROR;
}
}  // namespace

bool StoreReader::our_interrupt(const std::exception& e) {
    if (store_code(e) != SQLITE_INTERRUPT) return false;
    const std::lock_guard lock(db_mutex_);
    return std::exchange(interrupt_sent_, false);  // not a statement_timeout
}

StoreListing StoreReader::open(const QString& path) {
    path_ = path.toStdString();
    follow_ = {};
    running_.clear();
    last_id_ = 0;
    StoreListing listing;
    try {
        auto db = db::open_store(path_, db::Database::Mode::read_only);
        data_version_ = db::data_version(*db);
        listing.runs = db::list_runs_brief(*db);
        auto recorded = db::trials_recorded(*db);
        for (const auto& r : listing.runs) {
            listing.trials_recorded.push_back(recorded[r.id]);
            if (r.status == "running") running_[r.id] = r.status;
            last_id_ = std::max(last_id_, r.id);
        }
        delete changes_;
        changes_ = nullptr;
        if (const int fd = db->listen_for_changes(); fd >= 0) {
            changes_ = new QSocketNotifier(fd, QSocketNotifier::Read, this);
            connect(changes_, &QSocketNotifier::activated, this, [this] {
                if (db_ && db_->take_changes() > 0) poll();
            });
        }
        const std::lock_guard lock(db_mutex_);
        db_ = std::move(db);
        set_poll(live_ ? (timer_ ? timer_->interval() : 0) : 0);
    } catch (const std::exception& e) {
        listing.error = display_lines(e.what());
        listing.runs.clear();
    }
    return listing;
}

void StoreReader::load(unsigned generation, qint64 base, qint64 id) {
    // Marked before the look at wanted_, as want() marks wanted_ before its
    // look at this: an ask that comes meanwhile either stops this load here
    // or interrupts its query.
    const Reading reading(reading_, generation);
    if (!current(generation)) return;  // stale: a newer load is queued
    LoadedRun out;
    if (!db_) {
        out.generation = generation;
        out.error = QStringLiteral("no store is open: open one first (File > Open store...)");
        emit loaded(out);
        return;
    }
    // A server's cancel reaches the query running when it arrives: one sent
    // for an older load that ended first stops this one, which then starts
    // again (SQLite's interrupt stops only what runs when it is called).
    for (int attempt = 0;; ++attempt) {
        try {
            out = load_current(generation, base, id);
        } catch (const LoadCancelled&) {
            emit cancelled(generation);
            return;
        } catch (const std::exception& e) {
            if (!current(generation)) {  // interrupted by a newer ask or Cancel
                emit cancelled(generation);
                return;
            }
            if (our_interrupt(e) && attempt < 3) continue;  // meant for an older load
            out = LoadedRun{};
            out.error = display_lines(e.what());
        }
        break;
    }
    out.generation = generation;
    emit loaded(out);
}

LoadedRun StoreReader::load_current(unsigned generation, qint64 base, qint64 id) {
    db::RunCursor cursor;
    auto run = std::make_shared<db::RunData>(
        std::move(db::load_run_since(*db_, id, cursor, kViewer).data));
    if (!current(generation)) throw LoadCancelled{};
    // A single run is followed: its stack tree grows with each poll's rows.
    auto stacks = base ? nullptr : std::make_unique<analysis::GrowingStackTree>();
    // A comparison's views are its own (add_comparison); a single run's
    // wait until one is shown (add_call_views).
    LoadedRun out = compute_pages(run, [&] { return current(generation); }, stacks.get(),
                                  base || call_views_shown_);
    if (base) {
        const db::RunData b = db::load_run(*db_, base, kViewer);
        if (!current(generation)) throw LoadCancelled{};
        add_comparison(out, b);
    }
    follow_ = Followed{};
    if (!base) {
        follow_.id = id;
        follow_.generation = generation;
        follow_.cursor = std::move(cursor);
        follow_.read = run->rows.sizes();
        follow_.data = std::move(run);
        follow_.stacks = std::move(stacks);
    }
    return out;
}

void StoreReader::set_poll(int ms) {
    if (!timer_) {
        timer_ = new QTimer(this);  // on this object's thread
        connect(timer_, &QTimer::timeout, this, &StoreReader::poll);
    }
    live_ = ms > 0;
    if (ms > 0) timer_->setInterval(ms);
    // A server store announces its commits: no timer there.
    if (changes_) changes_->setEnabled(live_);
    if (live_ && !changes_)
        timer_->start();
    else
        timer_->stop();
}

bool StoreReader::poll() {
    if (!db_) return false;
    const Reading reading(reading_, kPolling);
    try {
        const int64_t v = db::data_version(*db_);
        if (v == data_version_) return false;
        list_changes();
        follow_changes();
        data_version_ = v;  // only once read: an interrupted poll is tried again
        if (std::exchange(poll_failing_, false)) emit poll_failed({});
    } catch (const std::exception& e) {
        // Stopped for a load, or another writer's lock: the next poll tries
        // again, quietly. Anything else is said when polls start failing, as
        // the live view stands still until they work again.
        const int code = store_code(e);
        if (our_interrupt(e) || code == SQLITE_BUSY || code == SQLITE_LOCKED) return false;
        if (!std::exchange(poll_failing_, true)) emit poll_failed(display_lines(e.what()));
        return false;
    }
    // Announcements that came in while this poll's queries ran wait in the
    // connection, not on the socket: take them, and look again.
    if (changes_ && db_->take_changes() > 0)
        QMetaObject::invokeMethod(this, &StoreReader::poll, Qt::QueuedConnection);
    return true;
}

void StoreReader::list_changes() {
    std::vector<int64_t> watched;
    for (const auto& [id, status] : running_) watched.push_back(id);
    StoreListing changes;
    changes.runs = db::list_runs_brief(*db_, last_id_, watched);
    if (changes.runs.empty()) return;
    const auto recorded = db::trials_recorded(*db_);
    for (const auto& r : changes.runs) {
        const auto it = recorded.find(r.id);
        changes.trials_recorded.push_back(it == recorded.end() ? 0 : it->second);
        last_id_ = std::max(last_id_, r.id);
        if (r.status == "running")
            running_[r.id] = r.status;
        else
            running_.erase(r.id);
    }
    emit runs_changed(changes);
}

void StoreReader::follow_changes() {
    if (!follow_.data || !current(follow_.generation)) return;
    const unsigned generation = follow_.generation;
    db::RunDelta delta = db::load_run_since(*db_, follow_.id, follow_.cursor, kViewer);
    if (delta.empty() && delta.data.info.status == follow_.data->info.status) return;
    // A trial whose stacks were read again (merge_run_rows drops its rows
    // first) is not the rows before, grown.
    if (!delta.replace_stack_trials.empty()) follow_.stacks->reset();
    std::shared_ptr<db::RunData> grown = rows_so_far();
    db::RunDelta kept = delta;  // what the rows before this one will lack
    db::merge_run_rows(*grown, std::move(delta));
    const db::Batch::Sizes read = grown->rows.sizes();
    // A running trial's rows so far, added here, not copied with every row
    // again by compute_pages.
    grown->rows.append(analysis::running_trial_rows(*grown));
    follow_.before = std::exchange(follow_.data, grown);
    follow_.before_read = std::exchange(follow_.read, read);
    follow_.last = std::move(kept);
    try {
        LoadedRun out = compute_pages(grown, [&] { return current(generation); },
                                      follow_.stacks.get(), call_views_shown_);
        out.generation = generation;
        out.live = true;
        emit loaded(out);
    } catch (const LoadCancelled&) {
    }
}

std::shared_ptr<db::RunData> StoreReader::rows_so_far() {
    Followed& f = follow_;
    std::shared_ptr<db::RunData> out;
    if (f.last && sole_owner(f.before)) {
        out = std::move(f.before);
        out->rows.truncate(f.before_read);
        db::merge_run_rows(*out, std::move(*f.last));
    } else {
        out = std::make_shared<db::RunData>(*f.data);
        out->rows.truncate(f.read);
    }
    f.before.reset();
    f.last.reset();
    return out;
}

void StoreReader::add_call_views(unsigned generation) {
    analysis::CallViews views;  // none for a stale ask: answered all the same
    if (current(generation) && follow_.generation == generation && follow_.stacks)
        if (const analysis::FlameTree* tree = follow_.stacks->tree())
            views = analysis::build_call_views(*tree);
    emit call_views_added(generation, views);
}

}  // namespace pathscope::gui
