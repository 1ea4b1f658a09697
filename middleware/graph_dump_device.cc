#include "middleware/graph_dump_device.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

#include "hal/file_contents.h"
#include "hal/forwarding_device.h"
#include "hal/graph_dump.h"

namespace nnremote::middleware {
namespace {

class GraphDumpDevice final : public hal::ForwardingDevice {
 public:
  GraphDumpDevice(hal::SharedDevice inner, std::string directory, std::shared_ptr<std::atomic<uint64_t>> counter)
      : ForwardingDevice(std::move(inner)), directory_(std::move(directory)), counter_(std::move(counter)) {}

  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override {
    dump(model);
    return inner()->prepareModel(model, preference, priority, deadline, modelCache, dataCache, token);
  }

 private:
  void dump(const hal::Model& model) const {
    const std::string name = getName() + "-" + std::to_string(++*counter_);
    const std::string base = directory_ + "/" + name;
    std::ofstream dot(base + ".dot");
    dot << hal::modelToDot(model, name);
    std::ofstream html(base + ".html");
    html << hal::modelToHtml(model, name + " (prepared on " + getName() + ")");
    dot.flush();
    html.flush();
    if (!dot || !html) {
      std::cerr << "npu_emulator: --dump-graphs: cannot write " << base << ".{dot,html}: " << std::strerror(errno)
                << std::endl;
    }
  }

  const std::string directory_;
  const std::shared_ptr<std::atomic<uint64_t>> counter_;  // shared by every device: names stay in order
};

}  // namespace

hal::Result<std::vector<hal::SharedDevice>> dumpGraphsOf(std::vector<hal::SharedDevice> devices,
                                                         const std::string& directory) {
  if (auto writable = hal::makeWritableDirectory(directory); !writable.ok()) {
    return hal::invalidArgument() << "--dump-graphs=" << writable.error().message;
  }
  auto counter = std::make_shared<std::atomic<uint64_t>>(0);
  for (auto& device : devices) device = std::make_shared<GraphDumpDevice>(std::move(device), directory, counter);
  return devices;
}

}  // namespace nnremote::middleware
