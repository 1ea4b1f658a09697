#include "drivers/proxy/execution_results.h"

#include <google/protobuf/map.h>
#include <google/protobuf/repeated_field.h>

#include <cstring>
#include <string>

#include "wire/conversions.h"

namespace nnremote::proxy {

namespace {

hal::Status copyOutputsBack(const hal::Request& request,
                            const google::protobuf::RepeatedPtrField<std::string>& outputData,
                            const google::protobuf::Map<uint32_t, uint64_t>& bulkTransferIds,
                            PoolTransport& pools) {
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    const auto bulk = bulkTransferIds.find(static_cast<uint32_t>(i));
    const std::string* data =
        i < static_cast<size_t>(outputData.size()) ? &outputData.Get(static_cast<int>(i)) : nullptr;
    if (bulk == bulkTransferIds.end() && (data == nullptr || data->empty())) continue;
    // Only an output in the client's memory has a place for what comes back. A server sending
    // bytes for another (an omitted output, one in a device buffer) is broken: that is its
    // error, not a write through a pool the request does not have.
    const auto& output = request.outputs[i];
    const auto& location = output.location;
    const hal::SharedMemory* memory =
        output.lifetime == hal::Request::Argument::LifeTime::POOL && location.poolIndex < request.pools.size()
            ? std::get_if<hal::SharedMemory>(&request.pools[location.poolIndex])
            : nullptr;
    if (memory == nullptr) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << "the server returned data for output " << i << ", which is not in the client's memory";
    }
    if (bulk != bulkTransferIds.end()) {
      NN_RETURN_IF_ERROR(pools.download(bulk->second, (*memory)->data() + location.offset, location.length));
      continue;
    }
    if (data->size() > location.length) {
      return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
             << "the server returned " << data->size() << " bytes for output " << i << ", which has room for "
             << location.length;
    }
    std::memcpy((*memory)->data() + location.offset, data->data(), data->size());
  }
  return {};
}

}  // namespace

hal::Result<hal::ExecutionOutcome> outcomeFromWire(const wire::ExecutionOutcome& described,
                                                   const hal::Request& request, PoolTransport& pools) {
  if (described.error().status() != wire::NONE) return wire::fromWire(described.error());
  NN_RETURN_IF_ERROR(copyOutputsBack(request, described.output_data(), described.output_bulk_transfer_ids(), pools));
  hal::ExecutionOutcome outcome;
  for (const auto& shape : described.output_shapes()) outcome.outputShapes.push_back(wire::fromWire(shape));
  outcome.timing = wire::fromWire(described.timing());
  if (described.has_profile()) {
    outcome.profile = std::make_shared<const hal::ExecutionProfile>(wire::fromWire(described.profile()));
  }
  return outcome;
}

}  // namespace nnremote::proxy
