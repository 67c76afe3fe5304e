// Fuzz support: an input as a file with a path, for the readers that take a
// file name (libpcap, SQLite), as the product gives them one.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pathscope::fuzz {

/// The bytes in an anonymous in-memory file (memfd), named by
/// /proc/self/fd/N: nothing is left on disk, however the process ends.
class MemFile {
  public:
    MemFile(const uint8_t* data, size_t size) {
        fd_ = memfd_create("fuzz-input", MFD_CLOEXEC);
        if (fd_ < 0) {
            std::perror("memfd_create");
            std::abort();
        }
        for (size_t done = 0; done < size;) {
            const ssize_t n = ::write(fd_, data + done, size - done);
            if (n <= 0) {
                std::perror("write memfd");
                std::abort();
            }
            done += static_cast<size_t>(n);
        }
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    ~MemFile() { ::close(fd_); }
    MemFile(const MemFile&) = delete;
    MemFile& operator=(const MemFile&) = delete;
    const std::string& path() const { return path_; }

  private:
    int fd_ = -1;
    std::string path_;
};

}  // namespace pathscope::fuzz
