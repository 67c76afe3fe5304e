#include "engine/packet_meta.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace pathscope::engine {

int g_packet_meta_offset = -1;

void register_packet_meta() {
    if (g_packet_meta_offset >= 0) return;
    rte_mbuf_dynfield desc{};
    strncpy(desc.name, "pathscope_packet_meta", sizeof desc.name - 1);
    desc.size = sizeof(PacketMeta);
    desc.align = alignof(PacketMeta);
    g_packet_meta_offset = rte_mbuf_dynfield_register(&desc);
    if (g_packet_meta_offset < 0)
        throw std::runtime_error(std::string("cannot register the per-packet mbuf field: ") +
                                 rte_strerror(rte_errno));
}

}  // namespace pathscope::engine
