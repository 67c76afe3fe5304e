// One way to add up a record of counters (a stage's line, a queue's row, a
// worker's ledger): the record lists its counters once, as member pointers,
//
//     static constexpr auto kCounters = std::tuple{&QueueRow::packets, &QueueRow::bytes, ...};
//
// and add_counters(into, from) adds each of `from`'s to `into`'s (a
// std::array of counters element by element). A counter added to the record
// and to its list is summed everywhere the record is.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>

namespace pathscope {

namespace counter_sum_detail {
template <typename T>
void add_one(T& into, const T& from) {
    into += from;
}
template <typename T, std::size_t N>
void add_one(std::array<T, N>& into, const std::array<T, N>& from) {
    for (std::size_t i = 0; i < N; ++i) into[i] += from[i];
}
}  // namespace counter_sum_detail

/// Adds every counter of `from` (Record::kCounters) to the same counter of `into`.
template <typename Record>
void add_counters(Record& into, const Record& from) {
    std::apply([&](auto... counter) { (counter_sum_detail::add_one(into.*counter, from.*counter), ...); },
               Record::kCounters);
}

}  // namespace pathscope
