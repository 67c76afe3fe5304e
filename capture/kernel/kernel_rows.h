// A kernel trial's snapshots turned into the store's rows, the same tables
// the engine's trials fill, so that every view reads a kernel run as it
// reads an engine run:
//   - the receive ledger from the IPv6 MIB of the namespace that receives
//     (a forwarding path's router): received = Ip6InReceives, delivered =
//     Ip6InDelivers, forwarded = Ip6OutForwDatagrams, dropped = its IPv6
//     drop counters (each a drop row of path "receive");
//   - the send ledger: sends = datagrams the sender offered sendmmsg (its
//     own count), sent = the sender namespace's Udp6OutDatagrams, send drops
//     = Udp6SndbufErrors and the refusals sendmmsg returned by errno;
//   - UDP's own drops after delivery (Udp6NoPorts, ...) as rows of path
//     "udp", and skb:kfree_skb's reasons, as the kernel names them, as rows
//     of path "kfree_skb" with the stage of the function that dropped;
//   - stages: each stage's samples (calls) and their CPU time in TSC
//     cycles; packets 0: the kernel does not count a stage's packets;
//   - route lookups from fib6:fib6_table_lookup as path events.
#pragma once

#include <map>
#include <string>

#include "capture/kernel/kernel_run.h"
#include "db/records.h"

namespace pathscope::capture {

/// Where the receive ledger's drops come from: the IPv6 MIB's drop counters.
inline constexpr const char* kIp6DropCounters[] = {
    "Ip6InHdrErrors",     "Ip6InTooBigErrors",  "Ip6InNoRoutes", "Ip6InAddrErrors",
    "Ip6InUnknownProtos", "Ip6InTruncatedPkts", "Ip6InDiscards"};

/// Drop row paths of a kernel run beside "receive" and "send".
inline constexpr const char* kUdpDropPath = "udp";
inline constexpr const char* kKfreeSkbPath = "kfree_skb";

/// The path event of the datagrams the sink read (recvmmsg), whole trial and window.
inline constexpr const char* kDatagramsRead = "datagrams_read";

/// The ledger of a kernel trial between two snapshots.
struct KernelLedger {
    uint64_t received = 0, delivered = 0, forwarded = 0, dropped = 0;
    uint64_t sends = 0, sent = 0;
    std::map<std::string, uint64_t> receive_drops, udp_drops, send_drops;
};
KernelLedger kernel_ledger(const KernelSnapshot& a, const KernelSnapshot& b, bool forward);

/// One interval's rows: its ledger deltas, its stages' samples and cycles,
/// its stacks, all with sequence number `seq`.
db::Batch kernel_interval_rows(int trial, int seq, double t, const KernelSnapshot& prev,
                               const KernelSnapshot& cur, const SampleTally& tally,
                               const KernelRunContext& ctx, const Scenario& sc);

/// The trial's totals: its TrialRow (rates over the steady window), stage
/// totals (seq -1), drops, path events, the request/response latency, and
/// its facts (namespaces, samples).
db::Batch kernel_trial_rows(int trial, const KernelTrialResult& r, const KernelRunContext& ctx,
                            const Scenario& sc);

}  // namespace pathscope::capture
