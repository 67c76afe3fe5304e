// Whether a shared object may be changed in place: nobody else holds it.
#pragma once

#include <atomic>
#include <memory>

namespace pathscope {

/// True when `p` is the only owner of its object (false when empty): the
/// caller may then change it. Another owner let go of it with a release
/// (shared_ptr's count goes down acq_rel); the acquire fence here pairs
/// with that, so that owner's last reads come before the caller's writes.
/// A live view grows the copy the window has let go (GrowingSelfDiff, the
/// GUI's rows so far) instead of copying the newest.
template <class T>
bool sole_owner(const std::shared_ptr<T>& p) {
    const bool sole = p && p.use_count() == 1;
    std::atomic_thread_fence(std::memory_order_acquire);
    return sole;
}

}  // namespace pathscope
