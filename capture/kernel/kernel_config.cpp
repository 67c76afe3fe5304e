#include "capture/kernel/kernel_config.h"

namespace pathscope::capture {

const char* kernel_path_name(KernelPath p) {
    switch (p) {
        case KernelPath::send:
            return "send";
        case KernelPath::rr:
            return "rr";
        case KernelPath::forward:
            return "forward";
    }
    return "?";
}

std::string sysctl_refusal(const std::string& key) {
    if (key.rfind("net.", 0) != 0)
        return "only net.* settings belong to a network namespace; this one is the whole "
               "machine's, and pathscope never changes the host";
    if (key.rfind("net.core.", 0) == 0)
        return "net.core.* settings (rmem_max, netdev_max_backlog, ...) are the whole machine's "
               "even inside a namespace, and pathscope never changes the host";
    if (key.find_first_of(" /=\n") != std::string::npos || key.find("..") != std::string::npos)
        return "a sysctl name is dotted words like net.ipv4.udp_early_demux";
    return "";
}

}  // namespace pathscope::capture
