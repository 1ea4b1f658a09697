// Reading a server's answer to an execution: outputs that travel back land in the client's
// memory, and an answer with bytes for an output that has no place for them (a broken or
// hostile server) is an error, not a write through a pool the request does not have.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <grpcpp/grpcpp.h>

#include <cstring>

#include "drivers/proxy/execution_results.h"
#include "drivers/proxy/pool_transport.h"
#include "drivers/proxy/session_channel.h"
#include "drivers/proxy/stubs.h"
#include "hal/memory.h"

namespace nnremote::proxy {
namespace {

using ::testing::HasSubstr;
using LifeTime = hal::Request::Argument::LifeTime;

// A channel that reading inline outputs never calls: its stub points at nothing, lazily.
class UncalledChannel final : public SessionChannel {
 public:
  AcceleratorStub& stub() const override { return stub_; }
  SessionRef currentSession() const override { return {}; }
  std::unique_ptr<grpc::ClientContext> controlContext() const override {
    return std::make_unique<grpc::ClientContext>();
  }
  hal::Error callFailed(const grpc::Status& status, uint64_t, bool*) override {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << status.error_message();
  }
  const DescriptorPasser& descriptorPasser() const override { return passer_; }

 private:
  mutable AcceleratorStub stub_{
      grpc::CreateChannel("unix:/nonexistent/nnremote-uncalled.sock", grpc::InsecureChannelCredentials())};
  DescriptorPasser passer_;
};

class ExecutionResultsTest : public ::testing::Test {
 protected:
  UncalledChannel channel_;
  PoolTransport pools_{channel_, /*useSharedMemory=*/false, /*bulkThresholdBytes=*/1 << 20};
};

hal::Request::Argument inPool(uint32_t pool, uint32_t offset, uint32_t length) {
  hal::Request::Argument argument;
  argument.location.poolIndex = pool;
  argument.location.offset = offset;
  argument.location.length = length;
  return argument;
}

hal::Request::Argument omitted() {
  hal::Request::Argument argument;
  argument.lifetime = LifeTime::NO_VALUE;
  return argument;
}

wire::ExecutionOutcome answerWithBytes(const std::string& bytes) {
  wire::ExecutionOutcome answer;
  answer.add_output_data(bytes);
  return answer;
}

TEST_F(ExecutionResultsTest, OutputBytesLandInTheOutputsPool) {
  auto memory = hal::createSharedMemory(8);
  ASSERT_TRUE(memory.ok());
  hal::Request request;
  request.pools.push_back(*memory);
  request.outputs.push_back(inPool(0, 4, 4));

  auto outcome = outcomeFromWire(answerWithBytes("abcd"), request, pools_);

  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(std::memcmp((*memory)->data() + 4, "abcd", 4), 0);
}

TEST_F(ExecutionResultsTest, BytesForAnOmittedOutputAreTheServersError) {
  hal::Request request;  // no pools at all: the only output is omitted
  request.outputs.push_back(omitted());

  auto outcome = outcomeFromWire(answerWithBytes("abcd"), request, pools_);

  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(outcome.error().message, HasSubstr("output 0, which is not in the client's memory"));
}

TEST_F(ExecutionResultsTest, BytesForAnOutputInADeviceBufferAreTheServersError) {
  hal::Request request;
  request.pools.push_back(hal::Request::MemoryDomainToken{7});
  request.outputs.push_back(inPool(0, 0, 4));

  auto outcome = outcomeFromWire(answerWithBytes("abcd"), request, pools_);

  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.error().message, HasSubstr("output 0, which is not in the client's memory"));
}

TEST_F(ExecutionResultsTest, AnOmittedOutputWithNothingSentBackIsFine) {
  hal::Request request;
  request.outputs.push_back(omitted());
  wire::ExecutionOutcome answer;
  answer.add_output_data("");

  EXPECT_TRUE(outcomeFromWire(answer, request, pools_).ok());
}

}  // namespace
}  // namespace nnremote::proxy
