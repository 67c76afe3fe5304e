// How frames are named, by the capture's symbolizer and by the importers
// alike, so that one function has one name in every profile.
#pragma once

#include <string>

namespace pathscope::capture {

/// A demangled C++ name as a flame graph wants it: no return type, no
/// parameter lists, no clone suffix, "(anonymous namespace)" as "{anon}"
/// ("ns::f<ns::g::{lambda#1}>").
std::string compact_symbol(std::string name);

/// A frame with no symbol, named by its module's file name
/// ("[librte_net_null.so.23.0]"), perf's own bracketed name for a
/// pseudo-module ("[kernel.kallsyms]"), or "[unknown]". Every address of a
/// module adds up in this one frame, where `perf report --sort sym` has a row
/// per address ("0x0000000000152619"); its rows summed by module match it.
std::string module_frame(const std::string& module_path);

}  // namespace pathscope::capture
