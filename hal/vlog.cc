#include "hal/vlog.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>

namespace nnremote::hal {
namespace {

constexpr std::pair<const char*, VlogTag> kTags[] = {
    {"compilation", VlogTag::COMPILATION}, {"execution", VlogTag::EXECUTION}, {"burst", VlogTag::BURST},
    {"fence", VlogTag::FENCE},             {"wire", VlogTag::WIRE},
    {"runtime", VlogTag::RUNTIME},
};

const char* nameOf(VlogTag tag) {
  for (const auto& [name, value] : kTags) {
    if (value == tag) return name;
  }
  return "?";
}

uint32_t maskFromEnvironment() {
  const char* list = std::getenv("NNREMOTE_VLOG");
  if (list == nullptr) return 0;
  auto mask = vlogMaskFrom(list);
  if (!mask.ok()) {
    std::fprintf(stderr, "nnremote: NNREMOTE_VLOG: %s\n", mask.error().message.c_str());
    return 0;
  }
  return *mask;
}

}  // namespace

namespace internal {
std::atomic<uint32_t> vlogMask{maskFromEnvironment()};
}

Result<uint32_t> vlogMaskFrom(const std::string& list) {
  uint32_t mask = 0;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string tag = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? list.size() + 1 : comma + 1;
    if (tag.empty()) continue;
    if (tag == "all") {
      mask = ~0u;
      continue;
    }
    bool known = false;
    for (const auto& [name, value] : kTags) {
      if (tag == name) {
        mask |= static_cast<uint32_t>(value);
        known = true;
      }
    }
    if (!known) {
      return invalidArgument() << "unknown VLOG tag '" << tag
                               << "' (tags: compilation, execution, burst, fence, wire, runtime, all)";
    }
  }
  return mask;
}

Status setVlogTags(const std::string& list) {
  NN_ASSIGN_OR_RETURN(const uint32_t mask, vlogMaskFrom(list));
  internal::vlogMask.store(mask, std::memory_order_relaxed);
  return {};
}

VlogLine::VlogLine(VlogTag tag, const char* file, int line) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm local{};
  localtime_r(&seconds, &local);
  const char* base = file;
  for (const char* c = file; *c != '\0'; ++c) {
    if (*c == '/') base = c + 1;
  }
  stream_ << "nnremote V " << nameOf(tag) << " " << std::put_time(&local, "%H:%M:%S") << "." << std::setw(6)
          << std::setfill('0') << micros << std::setfill(' ') << " " << ::getpid() << ":" << ::syscall(SYS_gettid)
          << " " << base << ":" << line << "] ";
}

VlogLine::~VlogLine() {
  stream_ << "\n";
  const std::string text = stream_.str();
  // One write per line, so lines from threads and processes sharing stderr do not interleave.
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text.data(), text.size());
}

}  // namespace nnremote::hal
