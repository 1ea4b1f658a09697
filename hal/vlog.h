// VLOG-style diagnostics by tag, after the NN driver guide: NNREMOTE_VLOG=compilation,execution
// (or `--vlog=` on npu_emulator and nnremote) turns on the tags named, "all" every tag. A line
// goes to stderr as
//   nnremote V execution 14:03:07.123456 1234:1240 proxy_prepared_model.cc:88] execute: ...
// Off, a VLOG costs one relaxed atomic load and a branch; its message is never formatted.
#ifndef NNREMOTE_HAL_VLOG_H_
#define NNREMOTE_HAL_VLOG_H_

#include <atomic>
#include <cstdint>
#include <sstream>
#include <string>

#include "hal/result.h"

namespace nnremote::hal {

enum class VlogTag : uint32_t {
  COMPILATION = 1u << 0,  // preparations, compilation caches
  EXECUTION = 1u << 1,    // executions of every kind, their statuses and times
  BURST = 1u << 2,        // bursts opened, closed, and their messages
  FENCE = 1u << 3,        // fences created, signaled, waited on
  WIRE = 1u << 4,         // connections, sessions, reconnects, bytes on the wire
  RUNTIME = 1u << 5,      // the NNAPI C API (libneuralnetworks.so): calls refused and why
};

namespace internal {
extern std::atomic<uint32_t> vlogMask;  // set from NNREMOTE_VLOG before main()
}

inline bool vlogOn(VlogTag tag) {
  return (internal::vlogMask.load(std::memory_order_relaxed) & static_cast<uint32_t>(tag)) != 0;
}

// The mask of the tags `list` names ("compilation,wire", "all", or "" for none). An unknown tag
// is an INVALID_ARGUMENT naming it and the known ones.
Result<uint32_t> vlogMaskFrom(const std::string& list);

// Replaces the tags that are on with `list` ("compilation,wire", "all", or "" for none).
// An unknown tag is an INVALID_ARGUMENT naming it and the known ones; nothing changes then.
Status setVlogTags(const std::string& list);

// One line, written whole to stderr when it goes out of scope.
class VlogLine {
 public:
  VlogLine(VlogTag tag, const char* file, int line);
  ~VlogLine();
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

}  // namespace nnremote::hal

// NN_VLOG(EXECUTION) << "execute " << id << " took " << us << " us";
#define NN_VLOG(tag)                                                  \
  if (!::nnremote::hal::vlogOn(::nnremote::hal::VlogTag::tag)) {      \
  } else                                                              \
    ::nnremote::hal::VlogLine(::nnremote::hal::VlogTag::tag, __FILE__, __LINE__).stream()

#endif  // NNREMOTE_HAL_VLOG_H_
