// The network a kernel run measures: network namespaces joined by veth
// pairs, made with the `ip` command and removed on every way out (the
// destructor; after a kill -9, remove_stale_namespaces at the next start).
// Nothing here touches the host's own namespace: links are created inside
// the namespaces, and sysctls are written by threads that entered them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "capture/kernel/kernel_config.h"
#include "engine/config.h"

namespace pathscope::capture {

/// The prefix of every namespace pathscope makes: "psk<pid>-<trial>-<role>",
/// so that one whose process is gone can be found and removed.
inline constexpr const char* kNamespacePrefix = "psk";

/// Removes the namespaces (and with them their veths) of pathscope
/// processes that no longer run; returns their names.
std::vector<std::string> remove_stale_namespaces();

/// Names of this machine's namespaces that pathscope made (tests).
std::vector<std::string> pathscope_namespaces();

/// Enters the calling thread into the namespace open as `fd` (named `name`
/// in errors). Throws std::runtime_error.
void enter_namespace(int fd, const std::string& name);

/// Runs `fn` on a thread of its own that entered namespace `fd`, and waits;
/// what it opens (a /proc/net file, a socket) stays in that namespace.
/// Rethrows what `fn` threw.
void in_namespace(int fd, const std::string& name, const std::function<void()>& fn);

/// One namespace of the path and its side of the links.
struct NetSide {
    std::string role;  ///< "sender", "receiver", "router"
    std::string ns;    ///< its name under /run/netns
    int fd = -1;       ///< open while the network lives
    /// The interfaces pathscope made in it (router: toward the sender, then
    /// toward the receiver); empty for a given namespace.
    std::vector<std::string> links;
};

class KernelNetwork {
  public:
    /// Makes the namespaces of `cfg.path` (numbered `serial`, one network a
    /// trial) with their addresses, default routes, the scenario's [[route]]
    /// and [[rule]] entries and [sysctl] settings, or opens the given ones.
    /// Throws std::runtime_error naming the step that failed; what was made
    /// before it is removed.
    KernelNetwork(const KernelConfig& cfg, const engine::EngineConfig& engine, unsigned serial);
    ~KernelNetwork();
    KernelNetwork(const KernelNetwork&) = delete;
    KernelNetwork& operator=(const KernelNetwork&) = delete;

    const NetSide& sender() const { return sides_.front(); }
    const NetSide& receiver() const { return sides_[1]; }
    /// The router (path = "forward"), else the receiver.
    const NetSide& middle() const { return sides_.size() > 2 ? sides_[2] : sides_[1]; }
    /// The namespace whose IPv6 counters are the receive ledger: the router
    /// of a forwarding path, else the receiver.
    const NetSide& ledger_side() const { return middle(); }
    const std::vector<NetSide>& sides() const { return sides_; }
    /// "psk123-0-snd psk123-0-rcv": what a run's facts name.
    std::string describe() const;
    bool made() const { return made_; }

  private:
    void make(const KernelConfig& cfg, const engine::EngineConfig& engine, unsigned serial);
    void remove() noexcept;

    std::vector<NetSide> sides_;
    bool made_ = false;
};

/// Writes /proc/sys/KEY (dots as slashes) in namespace `fd`. With
/// `guard_host`, the host's own value is read before and after: a key that
/// changed it is global, so the host's value is put back and the key refused.
void write_sysctl(int fd, const std::string& ns, const std::string& key, const std::string& value,
                  bool guard_host);

}  // namespace pathscope::capture
