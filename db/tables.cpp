#include "db/tables.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace pathscope::db {

Value to_value(const std::vector<std::pair<std::string, double>>& v) {
    std::string out;
    for (const auto& [stage, cycles] : v) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s%s=%.1f", out.empty() ? "" : " ", stage.c_str(), cycles);
        out += buf;
    }
    return out;
}

void from_value(const Value& v, std::vector<std::pair<std::string, double>>& out) {
    out.clear();
    std::istringstream in(std::get<std::string>(v));
    std::string item;
    while (in >> item) {
        // An item that is not NAME=NUMBER (a damaged store) is left out, as
        // one without '=' always was, rather than thrown as a bare stod error.
        const auto eq = item.find('=');
        if (eq == std::string::npos) continue;
        const char* number = item.c_str() + eq + 1;
        char* end = nullptr;
        const double x = std::strtod(number, &end);
        if (end == number || *end != '\0' || !std::isfinite(x)) continue;
        out.emplace_back(item.substr(0, eq), x);
    }
}

namespace {

template <typename Row>
Column<Row> run_id() {
    return {"run_id", "INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE", Role::run_id};
}

// Declarations that recur. A column that a migration added keeps that
// migration's DEFAULT, as ALTER TABLE ADD COLUMN needs one.
constexpr const char* kInt = "INTEGER NOT NULL";
constexpr const char* kReal = "REAL NOT NULL";
constexpr const char* kText = "TEXT NOT NULL";
constexpr const char* kIntZero = "INTEGER NOT NULL DEFAULT 0";
constexpr const char* kRealZero = "REAL NOT NULL DEFAULT 0";
constexpr const char* kTextEmpty = "TEXT NOT NULL DEFAULT ''";

template <typename Row>
void append_create(std::string& sql, const Table<Row>& t) {
    sql += std::string("CREATE TABLE ") + t.name + " (\n";
    for (size_t i = 0; i < t.columns.size(); ++i)
        sql += std::string(i ? ",\n  " : "  ") + t.columns[i].name + " " + t.columns[i].decl;
    if (t.constraints && *t.constraints) sql += std::string(",\n  ") + t.constraints;
    sql += t.without_rowid ? "\n) WITHOUT ROWID;\n" : "\n);\n";
    for (const auto& [index, columns] : t.indexes)
        sql += std::string("CREATE INDEX ") + index + " ON " + t.name + "(" + columns + ");\n";
}

}  // namespace

namespace tables {

const Table<RunInfo>& runs() {
    static const Table<RunInfo> t{
        "runs",
        {
            field<&RunInfo::id>("id", "INTEGER PRIMARY KEY", Role::store_id),
            field<&RunInfo::uuid>("uuid", "TEXT NOT NULL UNIQUE"),  // merge keys on it
            field<&RunInfo::label>("label", kText),
            field<&RunInfo::kind>("kind", "TEXT NOT NULL DEFAULT 'capture'"),
            field<&RunInfo::status>(
                "status", "TEXT NOT NULL CHECK (status IN ('running', 'complete', 'aborted'))"),
            field<&RunInfo::scenario_path>("scenario_path", kTextEmpty),
            field<&RunInfo::scenario_text>("scenario_text", kTextEmpty),
            field<&RunInfo::settings>("settings", kTextEmpty),
            field<&RunInfo::host>("host", kTextEmpty),
            field<&RunInfo::cpu_model>("cpu_model", kTextEmpty),
            field<&RunInfo::tsc_hz>("tsc_hz", kIntZero),
            field<&RunInfo::engine_version>("engine_version", kTextEmpty),
            field<&RunInfo::git_revision>("git_revision", kTextEmpty),
            field<&RunInfo::pid>("pid", kIntZero),
            field<&RunInfo::started_at>("started_at", kText),
            field<&RunInfo::ended_at>("ended_at", kTextEmpty),
            field<&RunInfo::trials>("trials", kIntZero),
            field<&RunInfo::trial_seconds>("trial_seconds", kRealZero),
            field<&RunInfo::interval_seconds>("interval_seconds", kRealZero),
            field<&RunInfo::pmu>("pmu", kTextEmpty),
            field<&RunInfo::note>("note", kTextEmpty),
            field<&RunInfo::experiment>("experiment", kTextEmpty),  // v4
            field<&RunInfo::cell>("cell", kTextEmpty),              // v4
        },
        "",
        false,
        {{"runs_label", "label"}, {"runs_experiment", "experiment"}}};
    return t;
}

const Table<TrialRow>& trials() {
    static const Table<TrialRow> t{"trials",
                                   {
                                       run_id<TrialRow>(),
                                       field<&TrialRow::trial>("trial", kInt),
                                       field<&TrialRow::seconds>("seconds", kReal),
                                       field<&TrialRow::received>("received", kInt),
                                       field<&TrialRow::delivered>("delivered", kInt),
                                       field<&TrialRow::forwarded>("forwarded", kInt),
                                       field<&TrialRow::replied>("replied", kInt),
                                       field<&TrialRow::dropped>("dropped", kInt),
                                       field<&TrialRow::sent>("sent", kInt),
                                       field<&TrialRow::rx_pps>("rx_pps", kReal),
                                       field<&TrialRow::forwarded_pps>("forwarded_pps", kReal),
                                       field<&TrialRow::delivered_pps>("delivered_pps", kReal),
                                       // v2
                                       field<&TrialRow::window_received>("window_received",
                                                                         kIntZero),
                                       field<&TrialRow::walks>("walks", kIntZero),
                                       field<&TrialRow::idle_walks>("idle_walks", kIntZero),
                                       // v4: the send path
                                       field<&TrialRow::sends>("sends", kIntZero),
                                       field<&TrialRow::sent_pps>("sent_pps", kRealZero),
                                       field<&TrialRow::window_sent>("window_sent", kIntZero),
                                       field<&TrialRow::route_lookups>("route_lookups", kIntZero),
                                       field<&TrialRow::source_selections>("source_selections",
                                                                           kIntZero),
                                   },
                                   "PRIMARY KEY (run_id, trial)"};
    return t;
}

const Table<IntervalRow>& intervals() {
    static const Table<IntervalRow> t{"intervals",
                                      {
                                          run_id<IntervalRow>(),
                                          field<&IntervalRow::trial>("trial", kInt),
                                          field<&IntervalRow::seq>("seq", kInt),
                                          field<&IntervalRow::t>("t", kReal),
                                          field<&IntervalRow::received>("received", kInt),
                                          field<&IntervalRow::delivered>("delivered", kInt),
                                          field<&IntervalRow::forwarded>("forwarded", kInt),
                                          field<&IntervalRow::replied>("replied", kInt),
                                          field<&IntervalRow::dropped>("dropped", kInt),
                                          field<&IntervalRow::sent>("sent", kIntZero),  // v4
                                      },
                                      "PRIMARY KEY (run_id, trial, seq)"};
    return t;
}

const Table<StageRow>& stage_counters() {
    // seq -1: the trial's total; otherwise the interval's delta. v7 rebuilt
    // the tables whose key gained the worker: their key columns come first,
    // in key order (SQLite 3.40's integrity_check misreads WITHOUT ROWID rows
    // whose key columns follow other columns as holding NULLs).
    static const Table<StageRow> t{"stage_counters",
                                   {
                                       run_id<StageRow>(),
                                       field<&StageRow::trial>("trial", kInt),
                                       field<&StageRow::seq>("seq", kInt),
                                       field<&StageRow::stage>("stage", kText),
                                       field<&StageRow::worker>("worker", kIntZero),  // v7, in the key
                                       field<&StageRow::ord>("ord", kInt),
                                       field<&StageRow::calls>("calls", kInt),
                                       field<&StageRow::packets>("packets", kInt),
                                       field<&StageRow::cycles>("cycles", kInt),
                                       field<&StageRow::idle_calls>("idle_calls", kIntZero),  // v2
                                       field<&StageRow::idle_cycles>("idle_cycles", kIntZero),
                                   },
                                   "PRIMARY KEY (run_id, trial, seq, stage, worker)"};
    return t;
}

const Table<EdgeRow>& edge_counters() {
    // v6; seq -1: the trial's total; otherwise the interval's delta.
    static const Table<EdgeRow> t{"edge_counters",
                                  {
                                      run_id<EdgeRow>(),
                                      field<&EdgeRow::trial>("trial", kInt),
                                      field<&EdgeRow::seq>("seq", kInt),
                                      field<&EdgeRow::from>("from_stage", kText),
                                      field<&EdgeRow::to>("to_stage", kText),
                                      field<&EdgeRow::worker>("worker", kIntZero),  // v7, in the key
                                      field<&EdgeRow::packets>("packets", kInt),
                                  },
                                  "PRIMARY KEY (run_id, trial, seq, from_stage, to_stage, worker)"};
    return t;
}

const Table<QueueRow>& queue_counters() {
    static const Table<QueueRow> t{
        "queue_counters",
        {
            run_id<QueueRow>(),
            field<&QueueRow::trial>("trial", kInt),
            field<&QueueRow::seq>("seq", kInt),
            field<&QueueRow::port>("port", kText),
            field<&QueueRow::queue>("queue", kInt),
            field<&QueueRow::dir>("dir", "TEXT NOT NULL CHECK (dir IN ('rx', 'tx'))"),
            field<&QueueRow::packets>("packets", kInt),
            field<&QueueRow::bytes>("bytes", kInt),
            field<&QueueRow::bursts>("bursts", kInt),
            field<&QueueRow::empty_polls>("empty_polls", kInt),
            field<&QueueRow::full>("full", kInt),
            field<&QueueRow::calls>("calls", kIntZero),
            field<&QueueRow::cycles>("cycles", kIntZero),
            field<&QueueRow::idle_calls>("idle_calls", kIntZero),
            field<&QueueRow::idle_cycles>("idle_cycles", kIntZero),
            field<&QueueRow::worker>("worker", kIntZero),
        },
        "PRIMARY KEY (run_id, trial, seq, port, queue, dir)"};
    return t;
}

const Table<DropRow>& drops() {
    static const Table<DropRow> t{"drops",
                                  {
                                      run_id<DropRow>(),
                                      field<&DropRow::trial>("trial", kInt),
                                      field<&DropRow::path>("path", kText),
                                      field<&DropRow::reason>("reason", kText),
                                      field<&DropRow::stage>("stage", kText),
                                      field<&DropRow::packets>("packets", kInt),
                                  },
                                  "PRIMARY KEY (run_id, trial, path, reason)"};
    return t;
}

const Table<HistogramRow>& histograms() {
    // One log-linear bucket layout everywhere (common/histogram.h).
    static const Table<HistogramRow> t{"histograms",
                                       {
                                           run_id<HistogramRow>(),
                                           field<&HistogramRow::trial>("trial", kInt),
                                           field<&HistogramRow::kind>("kind", kText),
                                           field<&HistogramRow::subject>("subject", kText),
                                           field<&HistogramRow::worker>("worker", kIntZero),  // v7, in the key
                                           field<&HistogramRow::unit>("unit", kText),
                                           field<&HistogramRow::count>("count", kInt),
                                           field<&HistogramRow::sum>("sum", kInt),
                                           field<&HistogramRow::min>("min", kInt),
                                           field<&HistogramRow::max>("max", kInt),
                                       },
                                       "PRIMARY KEY (run_id, trial, kind, subject, worker)"};
    return t;
}

const Table<BucketRow>& histogram_buckets() {
    static const Table<BucketRow> t{"histogram_buckets",
                                    {
                                        run_id<BucketRow>(),
                                        field<&BucketRow::trial>("trial", kInt),
                                        field<&BucketRow::kind>("kind", kText),
                                        field<&BucketRow::subject>("subject", kText),
                                        field<&BucketRow::worker>("worker", kIntZero),  // v7, in the key
                                        field<&BucketRow::bucket>("bucket", kInt),
                                        field<&BucketRow::count>("count", kInt),
                                    },
                                    "PRIMARY KEY (run_id, trial, kind, subject, worker, bucket)"};
    return t;
}

const Table<PerfCounterRow>& perf_counters() {
    static const Table<PerfCounterRow> t{
        "perf_counters",
        {
            run_id<PerfCounterRow>(),
            field<&PerfCounterRow::trial>("trial", kInt),
            field<&PerfCounterRow::event>("event", kText),
            field<&PerfCounterRow::supported>("supported", kInt),
            field<&PerfCounterRow::value>("value", kInt),
            field<&PerfCounterRow::time_enabled>("time_enabled", kInt),
            field<&PerfCounterRow::time_running>("time_running", kInt),
            field<&PerfCounterRow::note>("note", kTextEmpty),
        },
        "PRIMARY KEY (run_id, trial, event)"};
    return t;
}

const Table<FrameRow>& frames() {
    static const Table<FrameRow> t{"frames",
                                   {
                                       field<&FrameRow::id>("id", "INTEGER PRIMARY KEY",
                                                            Role::store_id),
                                       field<&FrameRow::symbol>("symbol", kText),
                                       field<&FrameRow::module>("module", kText),
                                   },
                                   "UNIQUE (symbol, module)",
                                   false};
    return t;
}

const Table<StackNodeRow>& stacks() {
    static const Table<StackNodeRow> t{
        "stacks",
        {
            field<&StackNodeRow::id>("id", "INTEGER PRIMARY KEY", Role::store_id),
            field<&StackNodeRow::parent>("parent", kInt),  // 0: a root frame
            field<&StackNodeRow::frame>("frame", "INTEGER NOT NULL REFERENCES frames(id)"),
        },
        "UNIQUE (parent, frame)",
        false};
    return t;
}

const Table<SampleRow>& stack_samples() {
    static const Table<SampleRow> t{
        "stack_samples",
        {
            run_id<SampleRow>(),
            field<&SampleRow::trial>("trial", kInt),
            field<&SampleRow::seq>("seq", "INTEGER NOT NULL DEFAULT -1"),  // v3
            field<&SampleRow::event>("event", kText),
            field<&SampleRow::stack>("stack", "INTEGER NOT NULL REFERENCES stacks(id)"),
            field<&SampleRow::weight>("weight", kInt),
        },
        "PRIMARY KEY (run_id, trial, seq, event, stack)"};
    return t;
}

const Table<PacketTraceRow>& packet_traces() {
    static const Table<PacketTraceRow> t{
        "packet_traces",
        {
            run_id<PacketTraceRow>(),
            field<&PacketTraceRow::trial>("trial", kInt),
            field<&PacketTraceRow::seq>("seq", kInt),
            field<&PacketTraceRow::t>("t", kReal),
            field<&PacketTraceRow::port>("port", kText),
            field<&PacketTraceRow::wire_len>("wire_len", kInt),
            field<&PacketTraceRow::data>("data", "BLOB NOT NULL"),
            field<&PacketTraceRow::stage_cycles>("stage_cycles", kText),
            field<&PacketTraceRow::outcome>("outcome", kText),
        },
        "PRIMARY KEY (run_id, trial, seq)"};
    return t;
}

const Table<EventRow>& trial_events() {
    static const Table<EventRow> t{"trial_events",
                                   {
                                       run_id<EventRow>(),
                                       field<&EventRow::trial>("trial", kInt),
                                       field<&EventRow::name>("name", kText),
                                       field<&EventRow::value>("value", kIntZero),
                                       field<&EventRow::window_value>("window_value", kIntZero),
                                   },
                                   "PRIMARY KEY (run_id, trial, name)"};
    return t;
}

const Table<WorkerTrialRow>& worker_trials() {
    // v7: each worker's ledger per trial (runs of engine.workers >= 2).
    static const Table<WorkerTrialRow> t{
        "worker_trials",
        {
            run_id<WorkerTrialRow>(),
            field<&WorkerTrialRow::trial>("trial", kInt),
            field<&WorkerTrialRow::worker>("worker", kInt),
            field<&WorkerTrialRow::lcore>("lcore", kInt),
            field<&WorkerTrialRow::received>("received", kInt),
            field<&WorkerTrialRow::delivered>("delivered", kInt),
            field<&WorkerTrialRow::forwarded>("forwarded", kInt),
            field<&WorkerTrialRow::replied>("replied", kInt),
            field<&WorkerTrialRow::dropped>("dropped", kInt),
            field<&WorkerTrialRow::sent>("sent", kInt),
            field<&WorkerTrialRow::walks>("walks", kInt),
            field<&WorkerTrialRow::idle_walks>("idle_walks", kInt),
            field<&WorkerTrialRow::sends>("sends", kInt),
            field<&WorkerTrialRow::window_received>("window_received", kInt),
            field<&WorkerTrialRow::window_forwarded>("window_forwarded", kInt),
            field<&WorkerTrialRow::window_delivered>("window_delivered", kInt),
            field<&WorkerTrialRow::window_sent>("window_sent", kInt),
        },
        "PRIMARY KEY (run_id, trial, worker)"};
    return t;
}

const Table<FactRow>& facts() {
    static const Table<FactRow> t{"facts",
                                  {
                                      run_id<FactRow>(),
                                      field<&FactRow::first>("key", kText),
                                      field<&FactRow::second>("value", kText),
                                  },
                                  "PRIMARY KEY (run_id, key)"};
    return t;
}

}  // namespace tables

std::string create_schema_sql() {
    std::string sql;
    append_create(sql, tables::runs());
    append_create(sql, tables::trials());
    append_create(sql, tables::intervals());
    append_create(sql, tables::stage_counters());
    append_create(sql, tables::queue_counters());
    append_create(sql, tables::drops());
    append_create(sql, tables::histograms());
    append_create(sql, tables::histogram_buckets());
    append_create(sql, tables::perf_counters());
    append_create(sql, tables::frames());
    append_create(sql, tables::stacks());
    append_create(sql, tables::stack_samples());
    append_create(sql, tables::packet_traces());
    append_create(sql, tables::facts());
    append_create(sql, tables::trial_events());
    append_create(sql, tables::edge_counters());
    append_create(sql, tables::worker_trials());
    return sql;
}

}  // namespace pathscope::db
