#include "engine/tsan.h"

#if defined(__SANITIZE_THREAD__)
#include <cstring>

#include "engine/dpdk.h"

namespace pathscope::engine {

namespace {

/// DPDK's default mbuf pool handler, which ours wraps.
const rte_mempool_ops& ring_ops() {
    static const rte_mempool_ops* ops = [] {
        for (uint32_t i = 0; i < rte_mempool_ops_table.num_ops; ++i)
            if (strcmp(rte_mempool_ops_table.ops[i].name, "ring_mp_mc") == 0)
                return &rte_mempool_ops_table.ops[i];
        return static_cast<rte_mempool_ops*>(nullptr);
    }();
    if (!ops) rte_panic("tsan: no ring_mp_mc mempool handler to wrap\n");
    return *ops;
}

int alloc(rte_mempool* mp) { return ring_ops().alloc(mp); }
void release(rte_mempool* mp) { ring_ops().free(mp); }
unsigned count(const rte_mempool* mp) { return ring_ops().get_count(mp); }

// An mbuf freed on one thread and allocated on another passes through the
// handler's ring: a release where it goes in, an acquire where it comes out.
int enqueue(rte_mempool* mp, void* const* objs, unsigned n) {
    tsan_handed_over(objs, n);
    return ring_ops().enqueue(mp, objs, n);
}
int dequeue(rte_mempool* mp, void** objs, unsigned n) {
    const int rc = ring_ops().dequeue(mp, objs, n);
    if (rc == 0) tsan_taken(objs, n);
    return rc;
}

const char* registered() {
    static const char* name = [] {
        static rte_mempool_ops ops{};
        strcpy(ops.name, "pathscope_tsan");
        ops.alloc = alloc;
        ops.free = release;
        ops.enqueue = enqueue;
        ops.dequeue = dequeue;
        ops.get_count = count;
        if (rte_mempool_register_ops(&ops) < 0) rte_panic("tsan: cannot register the mempool handler\n");
        return ops.name;
    }();
    return name;
}

}  // namespace

const char* mbuf_pool_ops() { return registered(); }

}  // namespace pathscope::engine

#else

namespace pathscope::engine {
const char* mbuf_pool_ops() { return nullptr; }
}  // namespace pathscope::engine

#endif
