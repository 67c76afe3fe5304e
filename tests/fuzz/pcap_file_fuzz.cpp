// libFuzzer target: a whole capture file (pcap or pcapng, header and
// records) through what pathscope does with one: the pcap workload's probe
// and `pathscope import pcap`'s reading, the engine's parser included (see
// pcap_fuzz.h). Seeds: ../shared/corpus/pcap and samples/*.pcap.
#include "tests/fuzz/pcap_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    pathscope::fuzz::read_capture_file(data, size);
    return 0;
}
