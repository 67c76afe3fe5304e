# Sourced by shell tests: forward_scenario DIR writes DIR/fwd.pcap (forwarded
# UDP/IPv6 frames, `pathscope frames`) and DIR/fwd.toml, a scenario that
# replays it forever on a net_pcap port into a net_null one: a worker that
# never starves, in 0.3 s trials. Needs $P, the pathscope binary.
forward_scenario() {
  "$P" frames --to '[2001:db8:5::1]:9' --to '[2001:db8:6::1]:9' --count 1024 -o "$1/fwd.pcap" >/dev/null
  cat > "$1/fwd.toml" <<EOF2
[eal]
args = ["--no-huge", "-m", "1024", "--no-pci", "--no-shconf", "-l", "0-1",
        "--log-level", "lib.*:error", "--log-level", "pmd.*:error"]
[engine]
duration = 0.3
[capture]
interval = 0.1
[[port]]
name = "wire"
mac = "02:00:00:00:00:01"
addresses = ["2001:db8:1::1/64"]
[[port]]
name = "uplink"
device = "net_null0,no-rx=1"
poll = false
mac = "02:00:00:00:00:02"
addresses = ["2001:db8:2::1/64"]
[[nexthop]]
id = 1
port = "uplink"
mac = "02:00:00:00:00:fe"
[[route]]
prefix = "2001:db8::/32"
nexthop = 1
[workload]
kind = "pcap"
port = "wire"
file = "$1/fwd.pcap"
infinite = true
EOF2
}
