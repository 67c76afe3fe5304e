#!/bin/sh
# What the engine puts on the wire passes Wireshark's dissectors: UDP
# datagrams from bound and unbound, connected and unconnected sockets (with
# traffic class, flow label and hop limit set), and the neighbour
# solicitations for an on-link destination that never answers, written by a
# net_pcap port's tx_pcap and read back by tshark with checksums checked.
#   wire_valid.sh PATHSCOPE
# Exit 77 (skipped) without tshark, unless CI=true (then it is a failure).
P=$1
. "$(dirname "$0")/../support/skip.sh"
command -v tshark >/dev/null 2>&1 || skip "tshark is not installed (scripts/setup.sh installs it)"
set -eu
D=$(mktemp -d /tmp/pathscope_wire.XXXXXX)
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$D/wire.toml" <<TOML
[engine]
duration = 0.3
nd_retrans = 0.05
[capture]
sample_hz = 0
traces_per_s = 0
[[port]]
name = "wire"
device = "net_pcap_wire0,tx_pcap=$D/out.pcap"
rx_queues = 0
poll = false
mac = "02:00:00:00:00:02"
addresses = ["2001:db8:2::1/64"]
[[nexthop]]
id = 1
port = "wire"
mac = "02:00:00:00:00:fe"
[[route]]
prefix = "2001:db8:900::/48"
nexthop = 1
[source]
destination = "2001:db8:900::7"
destinations = 3
payload = 30
rate = 3000
[socket]
traffic_class = 0x28
flow_label = 12345
hop_limit = 9
TOML
check() {  # check CASE EXPECTED_PROTOCOL
  n=$(tshark -r "$D/out.pcap" 2>/dev/null | wc -l)
  [ "$n" -gt 0 ] || fail "$1: nothing was written to the wire"
  bad=$(tshark -r "$D/out.pcap" -o udp.check_checksum:TRUE \
        -Y "_ws.malformed || _ws.expert.severity >= warning || udp.checksum.status == 0 || icmpv6.checksum.status == 0" \
        2>/dev/null | wc -l)
  [ "$bad" -eq 0 ] || { tshark -r "$D/out.pcap" -o udp.check_checksum:TRUE -z expert -q; fail "$1: $bad of $n frames malformed or with a bad checksum"; }
  good=$(tshark -r "$D/out.pcap" -o udp.check_checksum:TRUE -Y "$2" 2>/dev/null | wc -l)
  echo "$1: $n frames, $good of them $2, none malformed, no checksum error"
  [ "$good" -gt 0 ] || fail "$1: no frame matched $2"
}
for combo in "false false" "true false" "false true" "true true"; do
  set -- $combo
  rm -f "$D/out.pcap"
  "$P" run "$D/wire.toml" --allow-file-writes --db "$D/w.db" --set socket.bind=$1 --set socket.connect=$2 > "$D/run.txt" \
    || { cat "$D/run.txt"; fail "run bind=$1 connect=$2"; }
  check "bind=$1 connect=$2" "udp.checksum.status == 1 && ipv6.tclass == 0x28 && ipv6.flow == 12345 && ipv6.hlim == 9 && udp.length == 38"
done
# An on-link destination nobody answers: solicitations, retransmitted.
rm -f "$D/out.pcap"
"$P" run "$D/wire.toml" --allow-file-writes --db "$D/w.db" --set 'source.destination="2001:db8:2::50"' > "$D/run.txt" \
  || { cat "$D/run.txt"; fail "run to an on-link destination"; }
grep -q "nd_timeout\|nd_queue_full\|nd_pending_at_stop" "$D/run.txt" || fail "the held datagrams were not dropped by name"
check "unanswered neighbour" "icmpv6.type == 135 && icmpv6.checksum.status == 1 && ipv6.dst == ff02::1:ff00:50"
