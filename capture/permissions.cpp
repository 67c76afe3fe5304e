#include "capture/permissions.h"

#include "analysis/text/safe_text.h"

namespace pathscope::capture {

namespace {

std::string shown(const std::string& s) { return analysis::printable(s.substr(0, 120)); }

/// An EAL argument that loads a shared object: -d FILE or -dFILE.
bool loads_driver(const std::string& arg) { return arg.rfind("-d", 0) == 0 && arg.rfind("--", 0) != 0; }

/// A device string (a port's, or an EAL --vdev's) that writes a file.
bool writes_files(const std::string& device) { return device.find("tx_pcap=") != std::string::npos; }

}  // namespace

void check_permissions(const Scenario& sc, const CodePermissions& allowed) {
    const engine::EngineConfig& cfg = sc.engine;
    if (!allowed.plugins)
        for (const engine::StageConfig& st : cfg.stages) {
            if (st.origin == "--stage") continue;
            throw ScenarioError(
                shown(st.origin) + ": [[stage]] loads plugin " + shown(st.plugin) +
                ", a shared object that runs with your rights: pathscope runs a scenario's "
                "code only when the command line says so: add --allow-plugins (or take the "
                "[[stage]] table out of the scenario and name the plugin yourself: --stage " +
                shown(st.plugin) + ":after=" + shown(st.after) + ",KEY=VALUE...)");
        }
    const auto& eal = cfg.eal_args;
    for (size_t i = 0; i < eal.size(); ++i) {
        const std::string& a = eal[i];
        if (!allowed.eal_drivers && loads_driver(a)) {
            const std::string file = a == "-d" && i + 1 < eal.size() ? eal[i + 1] : a.substr(2);
            throw ScenarioError("[eal] args has -d " + shown(file) +
                                ": DPDK loads that shared object, which runs with your rights: "
                                "pathscope passes a scenario's -d only when the command line says "
                                "so: add --allow-eal-drivers");
        }
        const bool trace = a.rfind("--trace", 0) == 0;
        const bool vdev_writes = (a.rfind("--vdev", 0) == 0 && writes_files(a)) ||
                                 (a == "--vdev" && i + 1 < eal.size() && writes_files(eal[i + 1]));
        if (!allowed.file_writes && (trace || vdev_writes))
            throw ScenarioError("[eal] args has " + shown(a) +
                                (trace ? ", which writes trace files" : ", a device that writes a file (tx_pcap=)") +
                                ": pathscope lets a scenario write files only when the command "
                                "line says so: add --allow-file-writes");
    }
    if (!allowed.file_writes)
        for (const engine::PortConfig& p : cfg.ports)
            if (writes_files(p.device))
                throw ScenarioError("port '" + shown(p.name) + "': device \"" + shown(p.device) +
                                    "\" writes a file (tx_pcap=) wherever the scenario says: "
                                    "pathscope lets a scenario write files only when the command "
                                    "line says so: add --allow-file-writes");
}

}  // namespace pathscope::capture
