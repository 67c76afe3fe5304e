// ThreadSanitizer (the tsan preset) sees the ordering of what our code does,
// not of what DPDK's prebuilt libraries do inside: a PMD's rings, a
// mempool's ring, rte_hash's lock-free publication. Where an object passes
// from one thread to another through them, these say so, as a release where
// it is handed over and an acquire where it is taken. In every other build
// they are nothing.
#pragma once

#include <cstdint>

#if defined(__SANITIZE_THREAD__)
extern "C" {
void __tsan_acquire(void* addr);
void __tsan_release(void* addr);
}
#endif

namespace pathscope::engine {

#if defined(__SANITIZE_THREAD__)
inline void tsan_handed_over(const void* p) { __tsan_release(const_cast<void*>(p)); }
inline void tsan_taken(const void* p) { __tsan_acquire(const_cast<void*>(p)); }
#else
inline void tsan_handed_over(const void*) {}
inline void tsan_taken(const void*) {}
#endif

/// The mempool handler an mbuf pool is made with: nullptr (DPDK's default),
/// or under ThreadSanitizer the default wrapped so that an mbuf's reuse by
/// another thread is seen as the handover it is.
const char* mbuf_pool_ops();

/// The same for each of `n` objects (a burst of mbufs).
template <typename T>
inline void tsan_handed_over(T* const* objs, unsigned n) {
#if defined(__SANITIZE_THREAD__)
    for (unsigned i = 0; i < n; ++i) tsan_handed_over(objs[i]);
#else
    (void)objs, (void)n;
#endif
}
template <typename T>
inline void tsan_taken(T* const* objs, unsigned n) {
#if defined(__SANITIZE_THREAD__)
    for (unsigned i = 0; i < n; ++i) tsan_taken(objs[i]);
#else
    (void)objs, (void)n;
#endif
}

}  // namespace pathscope::engine
