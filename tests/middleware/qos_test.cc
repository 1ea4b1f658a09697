// QoS as the HAL defines it, for every executor, in process and through the proxy, judged on the
// simulated timeline with a clock the test moves by hand (no wall-clock assertions): deadlines
// in the past, too short for the model, or missed only because of queueing; priority order and
// preemption at operation boundaries; pacing; device memory and queue depth.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "hal/execution_adapters.h"
#include "hal/model_builder.h"
#include "tests/middleware/qos_stack.h"

namespace nnremote::testing {
namespace {

using hal::ErrorStatus;
using hal::OperandType;
using hal::OperationType;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr uint32_t kElements = 256;

// `operations` ADDs in a chain; each takes about a second on the 1 kHz NPU.
hal::Model chainModel(int operations) {
  hal::ModelBuilder b;
  uint32_t value = b.addInput(OperandType::TENSOR_FLOAT32, {kElements});
  for (int i = 0; i < operations; ++i) {
    const uint32_t next = i + 1 == operations ? b.addOutput(OperandType::TENSOR_FLOAT32, {kElements})
                                              : b.addTemporary(OperandType::TENSOR_FLOAT32, {kElements});
    b.addOperation(OperationType::ADD, {value, value, b.addInt32(0)}, {next});
    value = next;
  }
  return b.build();
}

hal::SharedPreparedModel prepare(const QosStack& stack, const hal::Model& model,
                                 hal::Priority priority = hal::Priority::MEDIUM) {
  auto prepared = stack.device->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, priority,
                                             std::nullopt, {}, {}, {});
  EXPECT_TRUE(prepared.ok()) << prepared.error().message;
  return prepared.ok() ? *prepared : nullptr;
}

constexpr float kSentinel = -7.0f;

hal::RequestWithMemories makeIo() {
  auto io = hal::makeRequest({hal::toBytes(std::vector<float>(kElements, 1.0f))}, {kElements * sizeof(float)});
  EXPECT_TRUE(io.ok());
  const std::vector<float> sentinel(kElements, kSentinel);
  std::memcpy(io->outputs[0]->data(), sentinel.data(), kElements * sizeof(float));
  return std::move(io).value();
}

bool outputUntouched(const hal::RequestWithMemories& io) {
  return hal::fromMemory<float>(io.outputs[0], kElements) == std::vector<float>(kElements, kSentinel);
}

enum class Executor { SYNC, ASYNC, REUSABLE, BURST, FENCED };
const char* name(Executor e) {
  switch (e) {
    case Executor::SYNC: return "Sync";
    case Executor::ASYNC: return "Async";
    case Executor::REUSABLE: return "Reusable";
    case Executor::BURST: return "Burst";
    case Executor::FENCED: return "Fenced";
  }
  return "?";
}

// Runs `request` with `executor`; for fenced executions the outcome's timing is timingLaunched.
hal::Result<hal::ExecutionOutcome> run(Executor executor, const hal::SharedPreparedModel& prepared,
                                       const hal::Request& request, const hal::OptionalTimePoint& deadline) {
  const auto measure = hal::MeasureTiming::YES;
  switch (executor) {
    case Executor::SYNC:
      return prepared->execute(request, measure, deadline, std::nullopt);
    case Executor::ASYNC:
      return hal::executeAsync(prepared, request, measure, deadline, std::nullopt).get();
    case Executor::REUSABLE: {
      NN_ASSIGN_OR_RETURN(auto execution, prepared->createReusableExecution(request, measure, std::nullopt));
      return execution->compute(deadline);
    }
    case Executor::BURST: {
      NN_ASSIGN_OR_RETURN(auto burst, prepared->configureExecutionBurst());
      return burst->execute(request, measure, deadline, std::nullopt);
    }
    case Executor::FENCED: {
      NN_ASSIGN_OR_RETURN(auto fenced, prepared->executeFenced(request, {}, measure, deadline, std::nullopt,
                                                               std::nullopt));
      fenced.first.wait(std::nullopt);
      NN_ASSIGN_OR_RETURN(auto timings, fenced.second());
      hal::ExecutionOutcome outcome;
      outcome.timing = timings.first;
      return outcome;
    }
  }
  return hal::makeError(ErrorStatus::GENERAL_FAILURE) << "unknown executor";
}

// The executions on the device's timeline, in arrival order.
std::vector<middleware::TimelinePlacement> executionsOnTimeline(const QosStack& stack) {
  std::vector<middleware::TimelinePlacement> executions;
  for (const auto& job : stack.scheduler->snapshot()) {
    if (job.spec.label == "execution") executions.push_back(job.placement);
  }
  return executions;
}

// How long the model takes on the device alone; leaves the device idle again.
hal::Duration ownDeviceTime(QosStack& stack, const hal::SharedPreparedModel& prepared) {
  auto io = makeIo();
  auto outcome = prepared->execute(io.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  EXPECT_TRUE(outcome.ok()) << outcome.error().message;
  stack.time->advance(std::chrono::hours(1));
  return outcome.ok() ? *outcome->timing.timeOnDevice : hal::Duration::zero();
}

class DeadlineTest : public ::testing::TestWithParam<std::tuple<Path, Executor>> {
 protected:
  void SetUp() override { stack_ = makeQosStack(std::get<0>(GetParam())); }
  Executor executor() const { return std::get<1>(GetParam()); }
  QosStack stack_;
};

TEST_P(DeadlineTest, ADeadlineAlreadyPassedFailsAtOnceWithoutRunning) {
  auto prepared = prepare(stack_, chainModel(2));
  auto io = makeIo();
  auto outcome = run(executor(), prepared, io.request, hal::Clock::now() - milliseconds(1));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, ErrorStatus::MISSED_DEADLINE_PERSISTENT) << outcome.error().message;
  EXPECT_TRUE(outputUntouched(io));
  EXPECT_TRUE(executionsOnTimeline(stack_).empty()) << "nothing may reach the device";
}

TEST_P(DeadlineTest, ADeadlineTooShortForTheModelFailsPersistentlyAndLeavesOutputsAlone) {
  auto prepared = prepare(stack_, chainModel(2));
  for (int attempt = 0; attempt < 2; ++attempt) {  // the second time its cost is already known
    auto io = makeIo();
    auto outcome = run(executor(), prepared, io.request, hal::Clock::now() + milliseconds(500));
    ASSERT_FALSE(outcome.ok());
    EXPECT_EQ(outcome.error().code, ErrorStatus::MISSED_DEADLINE_PERSISTENT) << outcome.error().message;
    EXPECT_NE(outcome.error().message.find("us of device time, more than"), std::string::npos)
        << outcome.error().message;
    EXPECT_TRUE(outputUntouched(io));
  }
  EXPECT_TRUE(executionsOnTimeline(stack_).empty()) << "it must not occupy the device";
}

TEST_P(DeadlineTest, ADeadlineMissedOnlyBecauseOfQueueingFailsTransiently) {
  auto busy = prepare(stack_, chainModel(3));
  auto prepared = prepare(stack_, chainModel(2));
  const hal::Duration own = ownDeviceTime(stack_, prepared);
  ASSERT_GT(own, milliseconds(100));
  // Another client's 3-operation execution holds the device (the clock stands still).
  auto other = makeIo();
  ASSERT_TRUE(busy->execute(other.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  auto io = makeIo();
  const hal::Duration budget = own + own / 2;  // enough alone, not behind the other execution
  auto missed = run(executor(), prepared, io.request, hal::Clock::now() + budget);
  ASSERT_FALSE(missed.ok());
  EXPECT_EQ(missed.error().code, ErrorStatus::MISSED_DEADLINE_TRANSIENT) << missed.error().message;
  EXPECT_TRUE(outputUntouched(io));
  // Once the device is free, the same deadline is met, with the right result.
  stack_.time->advance(std::chrono::hours(1));
  auto met = run(executor(), prepared, io.request, hal::Clock::now() + budget);
  ASSERT_TRUE(met.ok()) << met.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io.outputs[0], kElements), std::vector<float>(kElements, 4.0f));
  EXPECT_EQ(*met->timing.timeOnDevice, own);
}

TEST_P(DeadlineTest, TimeInDriverIncludesQueueingAndTimeOnDeviceDoesNot) {
  auto busy = prepare(stack_, chainModel(3));
  auto prepared = prepare(stack_, chainModel(2));
  const hal::Duration own = ownDeviceTime(stack_, prepared);
  auto other = makeIo();
  auto first = busy->execute(other.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  ASSERT_TRUE(first.ok());
  auto io = makeIo();
  auto queued = run(executor(), prepared, io.request, std::nullopt);
  ASSERT_TRUE(queued.ok()) << queued.error().message;
  EXPECT_EQ(*queued->timing.timeOnDevice, own);
  EXPECT_GE(*queued->timing.timeInDriver, own + *first->timing.timeOnDevice);
}

INSTANTIATE_TEST_SUITE_P(
    AllExecutors, DeadlineTest,
    ::testing::Combine(::testing::Values(Path::IN_PROCESS, Path::THROUGH_PROXY),
                       ::testing::Values(Executor::SYNC, Executor::ASYNC, Executor::REUSABLE, Executor::BURST,
                                         Executor::FENCED)),
    [](const auto& info) {
      std::ostringstream name_;
      name_ << std::get<0>(info.param) << name(std::get<1>(info.param));
      return name_.str();
    });

class SchedulingTest : public ::testing::TestWithParam<Path> {};

TEST_P(SchedulingTest, AHighPriorityArrivalPreemptsAtTheNextOperationBoundary) {
  QosStack stack = makeQosStack(GetParam());
  auto low = prepare(stack, chainModel(3), hal::Priority::LOW);
  auto high = prepare(stack, chainModel(1), hal::Priority::HIGH);
  stack.time->advance(std::chrono::hours(1));  // the preparations are done
  const hal::TimePoint start = stack.time->now();
  auto lowIo = makeIo();
  ASSERT_TRUE(low->execute(lowIo.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  stack.time->advance(milliseconds(100));  // during low's first operation (about 300 ms)
  auto highIo = makeIo();
  auto highOutcome = high->execute(highIo.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  ASSERT_TRUE(highOutcome.ok());

  const auto jobs = executionsOnTimeline(stack);
  ASSERT_EQ(jobs.size(), 2u);
  const auto& lowJob = jobs[0];
  const auto& highJob = jobs[1];
  ASSERT_EQ(lowJob.runs.size(), 2u) << "low must be split by high";
  EXPECT_EQ(lowJob.runs[0].start, start);
  EXPECT_EQ(lowJob.runs[0].segmentCount, 1u);
  EXPECT_EQ(highJob.start, lowJob.runs[0].end) << "high starts at low's first operation boundary";
  EXPECT_EQ(lowJob.runs[1].start, highJob.end) << "low resumes when high is done";
  EXPECT_EQ(lowJob.runs[1].firstSegment, 1u);
  // high waited only for the rest of one operation (timeInDriver adds the host's driver work).
  EXPECT_GE(*highOutcome->timing.timeInDriver - *highOutcome->timing.timeOnDevice,
            lowJob.runs[0].end - (start + milliseconds(100)));
  EXPECT_EQ(highJob.end - highJob.start, *highOutcome->timing.timeOnDevice);
}

TEST_P(SchedulingTest, OperationsTheHostCpuRunsDoNotHoldTheDevice) {
  // ADD, MUL, ADD, with MUL left to the host's CPU (NpuConfig.host_cpu).
  QosStackOptions options;
  options.npu = slowNpu();
  options.npu.mutable_host_cpu()->add_operations("MUL");
  options.npu.mutable_host_cpu()->set_clock_mhz(0.001);
  options.npu.mutable_host_cpu()->set_cycles_per_element(1);
  QosStack stack = makeQosStack(GetParam(), options);
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {kElements});
  const uint32_t sum = b.addTemporary(OperandType::TENSOR_FLOAT32, {kElements});
  const uint32_t square = b.addTemporary(OperandType::TENSOR_FLOAT32, {kElements});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {kElements});
  b.addOperation(OperationType::ADD, {in, in, b.addInt32(0)}, {sum});
  b.addOperation(OperationType::MUL, {sum, sum, b.addInt32(0)}, {square});
  b.addOperation(OperationType::ADD, {square, square, b.addInt32(0)}, {out});
  auto prepared = prepare(stack, b.build());
  stack.time->advance(std::chrono::hours(1));
  auto io = makeIo();
  auto outcome = prepared->execute(io.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(hal::fromMemory<float>(io.outputs[0], kElements), std::vector<float>(kElements, 8.0f));
  ASSERT_TRUE(outcome->profile);
  const hal::ExecutionProfile& profile = *outcome->profile;
  ASSERT_EQ(profile.operations.size(), 3u);
  EXPECT_EQ(profile.operations[1].unit, hal::ProfileUnit::HOST);
  ASSERT_GT(profile.hostCpuCycles, 0u);
  // The device ran the two ADDs only; the MUL's time is the driver's.
  const auto jobs = executionsOnTimeline(stack);
  ASSERT_EQ(jobs.size(), 1u);
  size_t segments = 0;
  for (const auto& run : jobs[0].runs) segments += run.segmentCount;
  EXPECT_EQ(segments, 2u);
  EXPECT_EQ(jobs[0].end - jobs[0].start, *outcome->timing.timeOnDevice);
  const auto toTime = [&](uint64_t cycles) {
    return std::chrono::nanoseconds(int64_t(double(cycles) * 1e9 / profile.clockHz));
  };
  EXPECT_EQ(*outcome->timing.timeOnDevice, toTime(profile.totalCycles - profile.hostCpuCycles));
  EXPECT_GE(*outcome->timing.timeInDriver - *outcome->timing.timeOnDevice, toTime(profile.hostCpuCycles));
}

TEST_P(SchedulingTest, WaitingExecutionsRunByPriorityThenArrival) {
  QosStack stack = makeQosStack(GetParam());
  auto blocker = prepare(stack, chainModel(1), hal::Priority::LOW);
  auto low = prepare(stack, chainModel(1), hal::Priority::LOW);
  auto medium = prepare(stack, chainModel(1), hal::Priority::MEDIUM);
  auto high = prepare(stack, chainModel(1), hal::Priority::HIGH);
  stack.time->advance(std::chrono::hours(1));  // the preparations are done
  auto io = makeIo();
  ASSERT_TRUE(blocker->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  stack.time->advance(milliseconds(1));  // the blocker has started; the others arrive together
  for (const auto& prepared : {low, medium, high}) {
    ASSERT_TRUE(prepared->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  }
  const auto jobs = executionsOnTimeline(stack);
  ASSERT_EQ(jobs.size(), 4u);
  const auto startOf = [&](size_t execution) { return jobs[execution].start; };
  EXPECT_LT(startOf(0), startOf(3));  // the blocker was already running
  EXPECT_LT(startOf(3), startOf(2));  // then HIGH
  EXPECT_LT(startOf(2), startOf(1));  // MEDIUM, and LOW last
}

TEST_P(SchedulingTest, PacedExecutionsReturnWhenTheyEndOnTheTimeline) {
  QosStackOptions options;
  options.paced = true;
  QosStack stack = makeQosStack(GetParam(), options);
  // Paced preparations take their time on the clock too: move it until each is done.
  auto preparePaced = [&](const hal::Model& model, hal::Priority priority) {
    auto pending = std::async(std::launch::async, [&] { return prepare(stack, model, priority); });
    for (int i = 0; i < 10000 && pending.wait_for(milliseconds(1)) != std::future_status::ready; ++i) {
      stack.time->advance(seconds(1));
    }
    return pending.get();
  };
  auto low = preparePaced(chainModel(3), hal::Priority::LOW);
  auto high = preparePaced(chainModel(1), hal::Priority::HIGH);
  stack.time->advance(std::chrono::hours(1));
  const hal::TimePoint start = stack.time->now();
  std::atomic<bool> lowDone{false};
  hal::Result<hal::ExecutionOutcome> lowOutcome = hal::makeError(ErrorStatus::GENERAL_FAILURE) << "not run";
  auto lowIo = makeIo();
  std::thread lowThread([&] {
    lowOutcome = low->execute(lowIo.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
    lowDone = true;
  });
  // Bounded waits for the other thread's call to reach the device.
  auto waitForExecutions = [&](size_t count) {
    for (int i = 0; i < 5000 && executionsOnTimeline(stack).size() < count; ++i) {
      std::this_thread::sleep_for(milliseconds(1));
    }
    ASSERT_EQ(executionsOnTimeline(stack).size(), count);
  };
  waitForExecutions(1);
  stack.time->advance(milliseconds(100));
  auto highIo = makeIo();
  hal::Result<hal::ExecutionOutcome> highOutcome = hal::makeError(ErrorStatus::GENERAL_FAILURE) << "not run";
  std::thread highThread([&] {
    highOutcome = high->execute(highIo.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  });
  waitForExecutions(2);
  EXPECT_FALSE(lowDone) << "a paced execution cannot return before its end on the timeline";
  stack.time->advance(std::chrono::hours(1));
  highThread.join();
  lowThread.join();
  ASSERT_TRUE(lowOutcome.ok()) << lowOutcome.error().message;
  ASSERT_TRUE(highOutcome.ok()) << highOutcome.error().message;
  const auto lowJob = executionsOnTimeline(stack).at(0);
  // Paced, low's own timing includes the preemption.
  EXPECT_GE(*lowOutcome->timing.timeInDriver, lowJob.end - start);
  EXPECT_EQ(lowJob.end - start, *lowOutcome->timing.timeOnDevice + *highOutcome->timing.timeOnDevice);
}

TEST_P(SchedulingTest, AFullDeviceQueueRefusesWithResourceExhaustedTransient) {
  QosStackOptions options;
  options.limits.scheduling.queueDepth = 2;
  QosStack stack = makeQosStack(GetParam(), options);
  std::vector<hal::SharedPreparedModel> prepared;
  for (int i = 0; i < 3; ++i) {
    prepared.push_back(prepare(stack, chainModel(1)));
    stack.time->advance(std::chrono::hours(1));  // preparations take the device too
  }
  const auto& [a, b, c] = std::tie(prepared[0], prepared[1], prepared[2]);
  auto io = makeIo();
  ASSERT_TRUE(a->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  ASSERT_TRUE(b->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  auto refused = c->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT);
  EXPECT_NE(refused.error().message.find("queue_depth = 2"), std::string::npos) << refused.error().message;
  stack.time->advance(std::chrono::hours(1));
  EXPECT_TRUE(c->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
}

TEST_P(SchedulingTest, AnUnpacedClientAheadOfTheClockWaitsForRoomInTheQueue) {
  QosStackOptions options;
  options.limits.scheduling.queueDepth = 3;
  QosStack stack = makeQosStack(GetParam(), options);
  auto prepared = prepare(stack, chainModel(1));
  stack.time->advance(std::chrono::hours(1));
  const hal::TimePoint start = stack.time->now();
  // The clock stands still while one client runs executions of about a second each: each
  // follows the previous one on the timeline, ever further ahead of the clock.
  constexpr int kExecutions = 5;
  std::atomic<int> returned{0};
  std::atomic<bool> failed{false};
  auto io = makeIo();
  std::thread client([&] {
    for (int i = 0; i < kExecutions; ++i) {
      if (!prepared->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok()) failed = true;
      ++returned;
    }
  });
  auto waitUntilReturned = [&](int count) {
    for (int i = 0; i < 5000 && returned < count; ++i) std::this_thread::sleep_for(milliseconds(1));
    return returned.load();
  };
  auto aheadOfClock = [&] {
    size_t ahead = 0;
    for (const auto& job : executionsOnTimeline(stack)) ahead += job.end > stack.time->now() ? 1 : 0;
    return ahead;
  };
  ASSERT_EQ(waitUntilReturned(3), 3);
  // The fourth waits while three are still to end (however long the test looks).
  for (int i = 0; i < 100 && executionsOnTimeline(stack).size() < 4; ++i) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(returned, 3);
  EXPECT_EQ(aheadOfClock(), 3u);
  const auto queued = executionsOnTimeline(stack);
  ASSERT_EQ(queued.size(), 3u);
  EXPECT_EQ(queued[0].arrival, start);
  EXPECT_EQ(queued[1].arrival, queued[0].end);
  EXPECT_EQ(queued[2].arrival, queued[1].end);
  EXPECT_EQ(stack.scheduler->load().jobsAhead, 2u);  // what /metrics shows as nnremote_jobs_ahead
  // The first one's end passing on the clock lets the fourth in, still right after the third.
  stack.time->set(queued[0].end);
  ASSERT_EQ(waitUntilReturned(4), 4);
  EXPECT_EQ(aheadOfClock(), 3u);
  // The clock passing everything lets the fifth in at once, arriving now.
  stack.time->advance(std::chrono::hours(1));
  ASSERT_EQ(waitUntilReturned(kExecutions), kExecutions);
  client.join();
  EXPECT_FALSE(failed);
  const auto executions = executionsOnTimeline(stack);
  ASSERT_EQ(executions.size(), 1u);  // the four before it ended before now and were forgotten
  EXPECT_EQ(executions[0].arrival, stack.time->now());
}

TEST_P(SchedulingTest, PreparationsQueueAndMissDeadlinesToo) {
  QosStack stack = makeQosStack(GetParam());
  auto past = stack.device->prepareModel(chainModel(1), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW,
                                         hal::Clock::now() - milliseconds(1), {}, {}, {});
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.error().code, ErrorStatus::MISSED_DEADLINE_PERSISTENT);
  // Loading constants takes the DRAM latency alone 100 ms at 1 kHz.
  auto tooShort = stack.device->prepareModel(chainModel(1), hal::ExecutionPreference::LOW_POWER,
                                             hal::Priority::LOW, hal::Clock::now() + milliseconds(20), {}, {}, {});
  ASSERT_FALSE(tooShort.ok());
  EXPECT_EQ(tooShort.error().code, ErrorStatus::MISSED_DEADLINE_PERSISTENT) << tooShort.error().message;
  EXPECT_TRUE(stack.scheduler->snapshot().empty());
}

TEST_P(SchedulingTest, TensorsBeyondDeviceMemoryAreRefusedBeforeAllocating) {
  QosStackOptions onEdge;
  onEdge.npu = sim::edgeNpuConfig();
  QosStack stack = makeQosStack(GetParam(), onEdge);
  // TILE of a [1, 1] tensor by [16384, 32768]: a 2 GiB output on a device with 1 GiB.
  hal::ModelBuilder b;
  const uint32_t input = b.addInput(OperandType::TENSOR_FLOAT32, {1, 1});
  const uint32_t multiples = b.addConstant<int32_t>(OperandType::TENSOR_INT32, {2}, {16384, 32768});
  const uint32_t output = b.addOutput(OperandType::TENSOR_FLOAT32, {0, 0});
  b.addOperation(OperationType::TILE, {input, multiples}, {output});
  auto prepared = prepare(stack, b.build());
  auto io = hal::makeRequest({hal::toBytes<float>({1.0f})}, {4});
  auto outcome = prepared->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT) << outcome.error().message;
  EXPECT_NE(outcome.error().message.find("dram.capacity_mib = 1024"), std::string::npos) << outcome.error().message;

  // A model whose constants exceed device memory is refused at preparation.
  sim::NpuConfig tiny = sim::edgeNpuConfig();
  tiny.mutable_dram()->set_capacity_mib(1);
  QosStackOptions tinyMemory;
  tinyMemory.npu = tiny;
  QosStack small = makeQosStack(GetParam(), tinyMemory);
  hal::ModelBuilder big;
  const uint32_t x = big.addInput(OperandType::TENSOR_FLOAT32, {1 << 19});
  const uint32_t weights = big.addConstant(OperandType::TENSOR_FLOAT32, {1 << 19}, std::vector<float>(1 << 19, 1.0f));
  const uint32_t sum = big.addOutput(OperandType::TENSOR_FLOAT32, {1 << 19});
  big.addOperation(OperationType::ADD, {x, weights, big.addInt32(0)}, {sum});
  auto refused = small.device->prepareModel(big.build(), hal::ExecutionPreference::LOW_POWER, hal::Priority::LOW,
                                            std::nullopt, {}, {}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT) << refused.error().message;
  EXPECT_NE(refused.error().message.find("dram.capacity_mib = 1"), std::string::npos) << refused.error().message;
}

TEST_P(SchedulingTest, TimeoutAfterFenceCountsFromWhenTheFencesSignal) {
  QosStack stack = makeQosStack(GetParam());
  auto prepared = prepare(stack, chainModel(2));
  const hal::Duration own = ownDeviceTime(stack, prepared);
  auto fencedWith = [&](hal::Duration afterFence, hal::Duration signalAfter) -> hal::ErrorStatus {
    const hal::SyncFence gate = hal::SyncFence::create();
    // Signaled from another thread: in process, executeFenced waits for its fences in the call.
    std::thread signaler([gate, signalAfter] {
      std::this_thread::sleep_for(signalAfter);  // the wait for the fence must not use up the budget
      gate.signal();
    });
    auto io = makeIo();
    auto fenced = prepared->executeFenced(io.request, {gate}, hal::MeasureTiming::NO, std::nullopt, std::nullopt,
                                          afterFence);
    signaler.join();
    if (!fenced.ok()) return fenced.error().code;
    fenced->first.wait(std::nullopt);
    auto info = fenced->second();
    stack.time->advance(std::chrono::hours(1));
    return info.ok() ? ErrorStatus::NONE : info.error().code;
  };
  // own + 300 ms after the fence is enough, even when the fence signals 500 ms after the call.
  EXPECT_EQ(fencedWith(own + milliseconds(300), milliseconds(500)), ErrorStatus::NONE);
  // Less than its own device time after the fence can never be met.
  EXPECT_EQ(fencedWith(own / 2, milliseconds(0)), ErrorStatus::MISSED_DEADLINE_PERSISTENT);
}

INSTANTIATE_TEST_SUITE_P(BothPaths, SchedulingTest, ::testing::Values(Path::IN_PROCESS, Path::THROUGH_PROXY),
                         [](const auto& info) {
                           std::ostringstream name_;
                           name_ << info.param;
                           return name_.str();
                         });

}  // namespace
}  // namespace nnremote::testing
