// pathscope import / export: capture files in and out of the store.
#include <iostream>

#include "analysis/run_view.h"
#include "capture/pcap_import.h"
#include "capture/pcapng_writer.h"
#include "cli/args.h"
#include "cli/verbs.h"
#include "db/queries.h"
#include "db/schema.h"

namespace pathscope::cli {

const char* const kImportUsage =
    "usage: pathscope import pcap FILE [--db FILE] [--label NAME]\n"
    "\n"
    "Reads a pcap or pcapng capture, stores its summary (packets, bytes, flows,\n"
    "protocols) and runs every packet through the engine's parser, so the store\n"
    "shows the drop reasons it would count. Ethernet, raw IPv6, BSD loopback and\n"
    "Linux cooked captures are read. A damaged file is refused with the byte offset\n"
    "of the bad record.\n";

const char* const kExportUsage =
    "usage: pathscope export RUN --format pcapng -o FILE [--db FILE]\n"
    "\n"
    "Writes a run's sampled packet traces as pcapng. Every packet carries a comment\n"
    "with its cycles at each stage it went through; tshark shows it with\n"
    "  tshark -r FILE -T fields -e frame.comment\n"
    "RUN is a run id or a label.\n";

int cmd_import(const std::vector<std::string>& argv) {
    const Args a = parse_args(argv, {"--db", "--label"}, {}, kImportUsage);
    if (a.positional.size() != 2 || a.positional[0] != "pcap")
        usage_error("import needs 'pcap FILE'", kImportUsage);
    const db::RunData run = capture::import_pcap(a.positional[1], db_path(a), a.get("--label"));
    analysis::RunViewOptions view;
    view.histograms = false;
    std::cout << analysis::render_run(run, view) << "\nstored as run " << run.info.id << " in "
              << db_path(a) << "\n";
    return 0;
}

int cmd_export(const std::vector<std::string>& argv) {
    const Args a = parse_args(argv, {"--db", "--format", "-o", "--output"}, {}, kExportUsage);
    if (a.positional.size() != 1)
        usage_error("export needs one RUN (an id or a label)", kExportUsage);
    const std::string format = a.get("--format", "pcapng");
    const std::string out = a.get("-o", a.get("--output"));
    if (format != "pcapng")
        usage_error("unknown --format '" + format + "' (this build writes: pcapng)", kExportUsage);
    if (out.empty()) usage_error("export needs -o FILE", kExportUsage);
    auto db = db::open_store(db_path(a), db::Database::Mode::read_only);
    const db::RunData run = db::load_run(*db, db::find_run(*db, a.positional[0]).id);
    if (run.rows.traces.empty())
        throw std::runtime_error("run " + std::to_string(run.info.id) +
                                 " has no packet traces (capture.traces_per_s was 0, or it is an "
                                 "import)");
    const size_t n = capture::write_pcapng(run, out);
    std::cout << "wrote " << n << " packet traces of run " << run.info.id << " to " << out << "\n";
    return 0;
}

}  // namespace pathscope::cli
