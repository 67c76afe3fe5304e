// A run's rows as CSV for spreadsheets and scripts, one table at a time: the
// store table's own columns (db/tables.h) as the header, so that a CSV holds
// everything the printed figures are made from.
#pragma once

#include <string>
#include <vector>

#include "db/records.h"

namespace pathscope::analysis {

/// The tables `to_csv` writes: trials, intervals, stages, queues, drops, perf.
const std::vector<std::string>& csv_tables();
/// Throws std::invalid_argument for a table not in csv_tables().
std::string to_csv(const db::RunData& run, const std::string& table);

}  // namespace pathscope::analysis
