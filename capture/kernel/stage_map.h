// A stage map: which kernel functions make up which stage of the packet
// path. A sampled call chain belongs to the stage of its innermost frame
// that the map names, so a stage holds the time of its functions and of
// what they call that no inner stage claims. Kernel time no named function
// holds is its own row (kUnmappedKernel), never hidden in another.
//
// The file: one "FUNCTION STAGE" a line, # starts a comment. FUNCTION is a
// kernel function's name, or a prefix ending in * (neigh_* names every
// neigh_ function); [user] names the stage of samples taken in user space.
// A compiler's clone of a function (fn.isra.0, fn.constprop.0, fn.cold)
// counts as the function.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "db/records.h"

namespace pathscope::capture {

/// The row of kernel samples whose call chain holds no function the map names.
inline constexpr const char* kUnmappedKernel = db::kUnmappedKernelStage;
/// The row of user-space samples when the map has no [user] entry.
inline constexpr const char* kUnmappedUser = db::kUnmappedUserStage;

class StageMap {
  public:
    /// Reads a map file; throws std::runtime_error naming the file and line.
    static StageMap load(const std::string& path);
    /// Same, from text (`name` in messages).
    static StageMap parse(const std::string& text, const std::string& name);

    /// The stage a function belongs to, or -1 when the map does not name it.
    int stage_of(const std::string& function) const;
    /// The stage of user-space samples (the [user] entry, or kUnmappedUser's row).
    int user_stage() const { return user_; }
    int unmapped_kernel() const { return unmapped_; }
    /// Every stage, in the order the file first names them, then the
    /// unmapped rows.
    const std::vector<std::string>& stages() const { return stages_; }
    const std::string& source() const { return source_; }

    /// The stage of one sample: `kernel` holds its kernel frames' function
    /// names and `user` its user-space frames', each leaf first.
    int classify(const std::vector<const std::string*>& kernel,
                 const std::vector<const std::string*>& user) const;

  private:
    int stage_index(const std::string& stage);

    std::vector<std::string> stages_;
    std::unordered_map<std::string, int> exact_;
    std::vector<std::pair<std::string, int>> prefixes_;  ///< longest first
    mutable std::unordered_map<std::string, int> cache_;
    int user_ = -1, unmapped_ = -1;
    std::string source_;
};

}  // namespace pathscope::capture
