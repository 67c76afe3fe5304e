// Writing runs into the store. BatchWriter turns a Batch into rows inside one
// BEGIN IMMEDIATE transaction; RunWriter does that on its own thread so the
// capture's control thread only hands batches over and never waits on disk.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "db/records.h"
#include "db/connection.h"

namespace pathscope::db {

/// Prepared statements for every table a Batch fills.
class BatchWriter {
  public:
    explicit BatchWriter(Database& db);
    ~BatchWriter();

    /// Inserts a run row (id and uuid are filled in if empty); returns its id.
    int64_t insert_run(RunInfo& run);
    /// Stores `batch` for `run_id` in one transaction.
    void write(int64_t run_id, const Batch& batch);
    /// Stores several batches in one transaction (group commit): a reader
    /// still sees each batch whole or not at all.
    void write(int64_t run_id, const std::vector<const Batch*>& batches);
    void set_status(int64_t run_id, const std::string& status, const std::string& note);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Current UTC time as ISO 8601 ("2026-11-30T04:05:06Z").
std::string utc_now();
/// A random 128-bit id as 32 hex digits.
std::string new_uuid();

class RunWriter {
  public:
    /// Opens (creating if needed) the store at `path` and records `run`
    /// as running. Throws DbError.
    RunWriter(const std::string& path, RunInfo run);
    /// Writes what is queued, then stops the thread.
    ~RunWriter();
    RunWriter(const RunWriter&) = delete;
    RunWriter& operator=(const RunWriter&) = delete;

    int64_t run_id() const { return run_.id; }
    /// The run as stored (id, uuid and start time filled in).
    const RunInfo& run() const { return run_; }
    const std::string& path() const { return path_; }

    /// Queues a batch; returns at once. Batches that queue up while the
    /// writer is busy go into the disk together, in one transaction.
    void submit(Batch batch);
    /// Waits until everything queued is committed. Throws the first write
    /// error, if any.
    void flush();
    /// Queues the run's final status and waits for it.
    void finish(const std::string& status, const std::string& note = "");
    /// The first write error (the thread stops writing after one), if any.
    std::optional<std::string> error() const;

    uint64_t rows_written() const { return rows_.load(); }
    uint64_t batches_written() const { return batches_.load(); }

  private:
    struct Job {
        Batch batch;
        std::optional<std::pair<std::string, std::string>> status;
    };
    void loop();

    std::string path_;
    std::unique_ptr<Database> db_;
    std::unique_ptr<BatchWriter> writer_;
    RunInfo run_;
    mutable std::mutex mu_;
    std::condition_variable cv_, idle_cv_;
    std::deque<Job> queue_;
    bool busy_ = false;
    bool stop_ = false;
    std::optional<std::string> error_;
    std::atomic<uint64_t> rows_{0}, batches_{0};
    std::thread thread_;
};

}  // namespace pathscope::db
