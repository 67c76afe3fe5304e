// What a page needs of a run, computed off the GUI thread: the run's rows,
// its summary, its flame trees and time series. StoreReader does every read
// of the store on a thread of its own: loads asked for by the window, and the
// live view's polls, which fetch only what was committed since the last.
#pragma once

#include <QObject>
#include <QString>
#include <QSocketNotifier>
#include <QTimer>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include "analysis/trees/call_tree.h"
#include "analysis/trees/flame_diff.h"
#include "analysis/verdicts/path_graph.h"
#include "analysis/render/report.h"
#include "analysis/figures/run_metrics.h"
#include "analysis/figures/run_summary.h"
#include "analysis/figures/time_series.h"
#include "db/queries.h"
#include "db/records.h"
#include "gui/models/trace_rows.h"

namespace pathscope::db {
class Database;
}

namespace pathscope::gui {

struct StoreListing {
    QString error;  ///< the store's own message (foreign, newer, damaged, not SQLite)
    std::vector<db::RunInfo> runs;
    std::vector<int> trials_recorded;
};

/// The runs of the store at `path`, or the error that refuses it.
StoreListing list_store(const std::string& path);

struct LoadedRun {
    unsigned generation = 0;  ///< which request this answers (the GUI drops stale ones)
    bool live = false;        ///< an update of the run shown, with what was committed since
    QString error;
    std::shared_ptr<const db::RunData> data;  ///< every row, for the pages that draw them
    analysis::RunSummary summary;
    std::shared_ptr<const analysis::FlameDiff> stages;  ///< busy cycles per received packet
    std::shared_ptr<const analysis::FlameDiff> stacks;  ///< shares of the samples; null when none
    QString stack_event;
    /// The Time series page: its points and the whole run's range tree.
    std::shared_ptr<const analysis::TimeSeries> series;
    std::shared_ptr<const analysis::FlameDiff> series_range;
    int series_intervals = 0;
    /// The stacks' top-down, bottom-up and caller/callee trees (empty when
    /// none); a comparison's, base and candidate, when both sampled the event.
    analysis::CallViews stack_views;
    /// stack_views were left out, as no call view was shown (a single
    /// run's load or live update): StoreReader::add_call_views makes them.
    bool call_views_left_out = false;
    /// The packet path (Path page; coloured by change for a comparison) and
    /// whether packets balance at each of its stages.
    std::shared_ptr<const analysis::PathGraph> path;
    bool path_balanced = true;
    /// The Packet traces page's rows: each trace's cycles, the outcomes.
    std::shared_ptr<const TraceRows> traces;
    /// A comparison (load_pair): candidate against base, everything the CLI's
    /// report holds.
    std::shared_ptr<const analysis::Report> report;
};

/// Thrown between steps of a load that was cancelled or superseded.
struct LoadCancelled {};

/// Loads run `id` of the store at `path` (its own connection).
LoadedRun load_run(const std::string& path, int64_t id);

/// Adds the comparison of `out`'s run against `base`: the report, and the
/// stack views with base and candidate columns when both sampled the event.
void add_comparison(LoadedRun& out, const db::RunData& base);

/// Loads two runs and compares `cand` against `base` (the summary and trees
/// are the candidate's).
LoadedRun load_pair(const std::string& path, int64_t base, int64_t cand);

/// Everything the pages show of `run`, computed from its rows; `keep_going`
/// is asked between steps and throws LoadCancelled when false. A followed
/// run's stack tree is `growing`'s, grown by the rows added since the last
/// call (analysis::GrowingStackTree), instead of built from every row.
/// Without `call_views` the stack views (top-down, bottom-up,
/// caller/callee: the costliest trees of a large profile) are left out.
LoadedRun compute_pages(std::shared_ptr<const db::RunData> run,
                        const std::function<bool()>& keep_going = {},
                        analysis::GrowingStackTree* growing = nullptr, bool call_views = true);

/// The GUI's reader of one store, living on its own thread (moveToThread):
/// slots run there one at a time, so at most one load is in flight; a load
/// asked for while another runs waits as one queued event, and a newer ask
/// makes every older one stale (skipped, or stopped between and inside its
/// queries with Database::interrupt).
class StoreReader : public QObject {
    Q_OBJECT
  public:
    explicit StoreReader(QObject* parent = nullptr);
    ~StoreReader() override;

    /// Any thread: the newest load wanted; older ones stop. Cancel asks for
    /// a generation no load has.
    void want(unsigned generation);
    /// Any thread: whether a call view (top-down, bottom-up, caller/callee)
    /// is on screen. A single run's load or live update computes them only
    /// then: at a million samples they cost as much as everything else a
    /// poll does.
    void show_call_views(bool shown) { call_views_shown_ = shown; }
    unsigned wanted() const { return wanted_.load(); }

    /// On the reader's thread: opens the store (its own read-only
    /// connection) and lists its runs, or says why it cannot.
    StoreListing open(const QString& path);

  public slots:
    /// Loads run `id` (base 0) or compares `id` against `base`, unless a
    /// newer generation is wanted by then. A single run is then followed:
    /// polls bring what it gains.
    void load(unsigned generation, qint64 base, qint64 id);
    /// Polls the store every `ms` (0 stops) for commits of other processes.
    void set_poll(int ms);
    /// The followed run's call views, which its load or last live update
    /// left out: answered by call_views_added (with none when `generation`
    /// is stale).
    void add_call_views(unsigned generation);
    /// One poll: on a commit, the runs that are new or changed, and what
    /// the followed run gained. Returns whether the store had changed.
    bool poll();

  signals:
    /// After a poll: the runs that are new or changed since the last listing.
    void runs_changed(pathscope::gui::StoreListing changes);
    void loaded(pathscope::gui::LoadedRun run);
    void call_views_added(unsigned generation, pathscope::analysis::CallViews views);
    void cancelled(unsigned generation);
    /// Polls started to fail, for a reason other than a load or another
    /// writer (said once, until they work again: then an empty message).
    void poll_failed(QString error);

  private:
    static constexpr unsigned kIdle = 0;
    static constexpr unsigned kPolling = ~0u - 1;  ///< above any generation the window asks for
    /// Which read the reader's thread is doing, for want()'s interrupt.
    struct Reading {
        std::atomic<unsigned>& at;
        Reading(std::atomic<unsigned>& a, unsigned what) : at(a) { at = what; }
        ~Reading() { at = kIdle; }
    };
    bool current(unsigned generation) const { return wanted_.load() == generation; }
    LoadedRun load_current(unsigned generation, qint64 base, qint64 id);
    /// Whether `e` is an interrupt want() sent (not a statement timeout);
    /// it is then taken.
    bool our_interrupt(const std::exception& e);
    void list_changes();
    void follow_changes();

    std::atomic<unsigned> wanted_{0};
    std::atomic<unsigned> reading_{kIdle};
    std::atomic<bool> call_views_shown_{false};
    std::mutex db_mutex_;  ///< guards db_ and interrupt_sent_ against want() on another thread
    bool interrupt_sent_ = false;  ///< an interrupt went out and has not been seen failing a read
    bool poll_failing_ = false;    ///< polls fail (said when they started to)
    std::unique_ptr<db::Database> db_;
    std::string path_;
    int64_t data_version_ = -1;
    QTimer* timer_ = nullptr;
    /// A server store's announcements of commits (LISTEN/NOTIFY), which
    /// drive the live view there instead of the timer.
    QSocketNotifier* changes_ = nullptr;
    bool live_ = false;
    std::map<int64_t, std::string> running_;  ///< runs listed as running, by id, and their status
    int64_t last_id_ = 0;
    /// The rows read so far, in a RunData only the reader holds: the one
    /// before the last delta grown by it when the window has let it go (a
    /// long profile's million sample rows take a tenth of a second to
    /// copy), else a copy of the newest.
    std::shared_ptr<db::RunData> rows_so_far();

    /// The run followed by polls: its rows so far and where they end.
    struct Followed {
        int64_t id = 0;
        unsigned generation = 0;
        db::RunCursor cursor;
        /// What the window was given: the rows read, then a running trial's
        /// rows so far (analysis::running_trial_rows); `read` counts the first.
        std::shared_ptr<db::RunData> data;
        db::Batch::Sizes read{};
        /// The same before the last delta, and that delta (rows_so_far).
        std::shared_ptr<db::RunData> before;
        db::Batch::Sizes before_read{};
        std::optional<db::RunDelta> last;
        std::unique_ptr<analysis::GrowingStackTree> stacks;  ///< of data's rows
    } follow_;
};

}  // namespace pathscope::gui

Q_DECLARE_METATYPE(pathscope::gui::StoreListing)
Q_DECLARE_METATYPE(pathscope::gui::LoadedRun)
Q_DECLARE_METATYPE(pathscope::analysis::CallViews)
