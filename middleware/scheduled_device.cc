#include "middleware/scheduled_device.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "hal/execution_adapters.h"
#include "middleware/background_workers.h"
#include "middleware/staged_outputs.h"

namespace nnremote::middleware {
namespace {

using hal::Duration;
using hal::ErrorStatus;
using hal::makeError;
using hal::TimePoint;

int64_t micros(Duration d) { return std::chrono::duration_cast<std::chrono::microseconds>(d).count(); }

// The wall-clock time left before `deadline` (deadlines are host time points, whatever clock
// the timeline runs on), or the error for one already passed.
hal::Result<hal::OptionalDuration> timeLeft(const hal::OptionalTimePoint& deadline, const char* what) {
  if (!deadline.has_value()) return hal::OptionalDuration();
  // At most kLongestDuration: the timeline adds it to its own time points.
  const Duration left = hal::timeUntil(*deadline);
  if (left <= Duration::zero()) {
    return makeError(ErrorStatus::MISSED_DEADLINE_PERSISTENT)
           << "the deadline had already passed when the " << what << " arrived";
  }
  return hal::OptionalDuration(left);
}

hal::Error tooLongForDeadline(const char* what, Duration own, Duration left) {
  return makeError(ErrorStatus::MISSED_DEADLINE_PERSISTENT)
         << "the " << what << " needs " << micros(own) << " us of device time, more than the " << micros(left)
         << " us left before its deadline";
}

hal::Error stoppedForDeadline(const char* what, const JobResult& job) {
  const auto& placement = job.placement;
  size_t ran = 0;
  for (const auto& run : placement.runs) ran += run.segmentCount;
  return makeError(ErrorStatus::MISSED_DEADLINE_TRANSIENT)
         << "the " << what << " was stopped after " << ran << " operations: it waited "
         << micros((placement.runs.empty() ? placement.end : placement.start) - placement.arrival)
         << " us for the device, and its " << micros(job.ownTime) << " us of device time no longer fit before its deadline";
}

// A job holds the device for at most kLongestJob, about 13 days: far past any real one, while the
// timeline adds jobs' times to time points, which thousands of the longest durations (a simulated
// NPU clocked absurdly slowly, a backend reporting any uint64_t of nanoseconds) would take past
// the clock's range; 8,192 of these still fit.
constexpr Duration kLongestJob{int64_t{1} << 50};

Duration boundedJobTime(Duration time) { return std::clamp(time, Duration::zero(), kLongestJob); }

// One segment per operation the device reported, in simulated time; or the whole execution as
// one segment (its reported device time, else the host time it took). Operations the host's
// CPU ran do not hold the device: their time is the device's driver time (timeInDriver).
std::vector<Duration> segmentsAsReported(const hal::ExecutionOutcome& outcome, Duration hostTime) {
  std::vector<Duration> segments;
  if (outcome.profile && outcome.profile->clockHz > 0 && !outcome.profile->operations.empty()) {
    // Converted at cumulative cycle counts, so the segments add up to the device time the
    // device itself reports for the whole execution.
    const double clockHz = outcome.profile->clockHz;
    uint64_t cycles = 0;
    int64_t previousEnd = 0;
    for (const auto& op : outcome.profile->operations) {
      if (op.unit == hal::ProfileUnit::HOST) continue;
      cycles += op.totalCycles;
      const int64_t end = hal::cyclesToDuration(static_cast<double>(cycles), clockHz).count();
      segments.emplace_back(end - previousEnd);
      previousEnd = end;
    }
    if (!segments.empty()) return segments;  // else the host's CPU ran everything
  }
  segments.push_back(outcome.timing.timeOnDevice.value_or(hostTime));
  return segments;
}

// The segments as reported, cut off where together they reach kLongestJob.
std::vector<Duration> segmentsOf(const hal::ExecutionOutcome& outcome, Duration hostTime) {
  std::vector<Duration> segments = segmentsAsReported(outcome, hostTime);
  Duration total{0};
  for (Duration& segment : segments) {
    segment = std::clamp(segment, Duration::zero(), kLongestJob - total);
    total += segment;
  }
  return segments;
}

Duration sum(const std::vector<Duration>& segments) {
  Duration total{0};
  for (Duration d : segments) total += d;
  return total;
}

}  // namespace

class ScheduledPreparedModel final : public hal::SyncExecutionPreparedModel {
 public:
  ScheduledPreparedModel(hal::SharedPreparedModel inner, std::shared_ptr<DeviceScheduler> scheduler,
                         hal::Priority priority, std::vector<hal::OperandType> outputTypes)
      : inner_(std::move(inner)), scheduler_(std::move(scheduler)), priority_(priority),
        outputTypes_(std::move(outputTypes)) {
    scheduler_->preparedModelAdded();
  }
  ~ScheduledPreparedModel() override { scheduler_->preparedModelReleased(); }

  const hal::SharedPreparedModel& inner() const { return inner_; }
  const hal::Model* getModel() const override { return inner_->getModel(); }

  // Every executor (sync, async, reusable, burst, fenced) comes here; each execution is reported
  // to the scheduler's observer with how it ended.
  hal::Result<hal::ExecutionOutcome> execute(const hal::Request& request, hal::MeasureTiming measure,
                                             const hal::OptionalTimePoint& deadline,
                                             const hal::OptionalDuration& loopTimeoutDuration) const override {
    ExecutionReport report;
    report.priority = priority_;
    const TimePoint start = hal::Clock::now();
    auto outcome = schedule(request, measure, deadline, loopTimeoutDuration, &report);
    report.latency = std::chrono::duration_cast<Duration>(hal::Clock::now() - start);
    report.status = outcome.ok() ? ErrorStatus::NONE : outcome.error().code;
    scheduler_->reportExecution(report);
    return outcome;
  }

 private:
  hal::Result<hal::ExecutionOutcome> schedule(const hal::Request& request, hal::MeasureTiming measure,
                                              const hal::OptionalTimePoint& deadline,
                                              const hal::OptionalDuration& loopTimeoutDuration,
                                              ExecutionReport* report) const {
    NN_ASSIGN_OR_RETURN(const hal::OptionalDuration left, timeLeft(deadline, "execution"));
    const TimePoint arrival = arrivalTime();
    const InputShapes shapes = inputShapes(request);
    // The execution takes the device at its arrival, before the host has computed it, as it
    // would on the device, with the cost of its input shapes' last run (none the first time);
    // the cost is corrected after. Placed only once computed, a first run timed on the host (a
    // backend library that measures its device time) would occupy the device a second time
    // after it had already taken that long.
    const std::optional<std::vector<Duration>> known = knownSegments(shapes);
    if (known.has_value() && left.has_value() && sum(*known) > *left) {
      return tooLongForDeadline("execution", sum(*known), *left);
    }
    TimelineJobSpec spec;
    spec.priority = priority_;
    spec.arrival = arrival;
    if (left.has_value()) spec.deadline = arrival + *left;
    if (known.has_value()) spec.segments = *known;
    spec.costUnknown = !known.has_value();
    spec.label = "execution";
    NN_ASSIGN_OR_RETURN(const DeviceTimeline::JobId placed, scheduler_->place(std::move(spec)));
    // What never runs gives its place on the timeline back.
    auto failBeforeRunning = [&](hal::Error error) {
      scheduler_->cancel(placed);
      return error;
    };
    // With a deadline the execution may yet be stopped, so it writes to scratch first.
    std::optional<StagedOutputs> staged;
    if (left.has_value()) {
      auto staging = StagedOutputs::stage(request, outputTypes_);
      if (!staging.ok()) return failBeforeRunning(staging.error());
      staged = std::move(staging).value();
    }
    const TimePoint hostStart = scheduler_->now();  // the host's clock in a server (a test's, in a test)
    // Always timed: the timeline needs the cost of every operation. LOW work is simulated on
    // background threads, so it never takes a core from a higher-priority client's host work.
    const hal::Request& toRun = staged ? staged->request() : request;
    auto compute = [&] { return inner()->execute(toRun, hal::MeasureTiming::YES, std::nullopt, loopTimeoutDuration); };
    std::optional<hal::Result<hal::ExecutionOutcome>> computed;  // no placeholder error: building one costs a stream
    if (priority_ == hal::Priority::LOW) {
      runInBackground([&] { computed.emplace(compute()); });
    } else {
      computed.emplace(compute());
    }
    if (!computed->ok()) return failBeforeRunning(computed->error());
    hal::ExecutionOutcome outcome = std::move(*computed).value();
    const Duration hostTime = std::chrono::duration_cast<Duration>(scheduler_->now() - hostStart);
    std::vector<Duration> segments = segmentsOf(outcome, hostTime);
    const Duration own = sum(segments);
    rememberSegments(shapes, segments);
    if (left.has_value() && own > *left) return failBeforeRunning(tooLongForDeadline("execution", own, *left));

    const JobResult job = scheduler_->finish(placed, segments != known ? &segments : nullptr);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      lastJob_ = job.id;
      lastEnd_ = job.placement.end;
    }
    report->deviceTime = own;
    report->queueWait = std::max(Duration::zero(), std::chrono::duration_cast<Duration>(job.placement.start - job.placement.arrival));
    if (job.placement.stopped) return stoppedForDeadline("execution", job);
    if (staged) staged->publish(outcome.outputShapes);

    if (measure == hal::MeasureTiming::YES) {
      // Driver work is what the wrapped device spent besides the device itself.
      const Duration driverWork = outcome.timing.timeInDriver && outcome.timing.timeOnDevice
                                      ? *outcome.timing.timeInDriver - *outcome.timing.timeOnDevice
                                      : Duration::zero();
      outcome.timing.timeOnDevice = own;
      outcome.timing.timeInDriver = std::chrono::duration_cast<Duration>(job.placement.end - job.placement.arrival) + driverWork;
    } else {
      outcome.timing = {};
      outcome.profile.reset();
    }
    return outcome;
  }

 protected:
  // A reusable execution is checked once, when it is created, by the wrapped device.
  hal::Status validateReusableRequest(const hal::Request& request) const override {
    return inner()->createReusableExecution(request, hal::MeasureTiming::NO, std::nullopt).status();
  }

 private:
  using InputShapes = std::vector<std::vector<uint32_t>>;

  // Executions of one prepared model are issued one after another by their caller, so the next
  // one cannot arrive on the device before the previous one ended there. Unpaced, that end can
  // lie ahead of the clock; without this, a client faster than the simulated device would queue
  // behind itself.
  TimePoint arrivalTime() const {
    const TimePoint now = scheduler_->now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (lastJob_ == 0) return now;
    return std::max(now, scheduler_->endOf(lastJob_, lastEnd_));
  }

  static InputShapes inputShapes(const hal::Request& request) {
    InputShapes shapes;
    for (const auto& input : request.inputs) shapes.push_back(input.dimensions);
    return shapes;
  }
  std::optional<std::vector<Duration>> knownSegments(const InputShapes& shapes) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = costs_.find(shapes);
    if (it == costs_.end()) return std::nullopt;
    return it->second;
  }
  // Costs by input shapes let an execution be placed before it is computed, and one that cannot
  // fit be refused without running it. A model with control flow can cost more or less with
  // other data; the cache holds the last cost, and the placement is corrected after computing.
  void rememberSegments(const InputShapes& shapes, const std::vector<Duration>& segments) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (costs_.size() >= kMaxRememberedCosts && costs_.count(shapes) == 0) costs_.clear();
    costs_[shapes] = segments;
  }
  static constexpr size_t kMaxRememberedCosts = 64;

  hal::SharedPreparedModel inner_;
  std::shared_ptr<DeviceScheduler> scheduler_;
  hal::Priority priority_;
  std::vector<hal::OperandType> outputTypes_;
  mutable std::mutex mutex_;
  mutable DeviceTimeline::JobId lastJob_ = 0;
  mutable TimePoint lastEnd_;
  mutable std::map<InputShapes, std::vector<Duration>> costs_;
};

hal::SharedPreparedModel unwrapScheduled(const hal::SharedPreparedModel& preparedModel) {
  if (const auto* scheduled = dynamic_cast<const ScheduledPreparedModel*>(preparedModel.get())) {
    return scheduled->inner();
  }
  return preparedModel;
}

ScheduledDevice::ScheduledDevice(hal::SharedDevice inner, std::shared_ptr<DeviceScheduler> scheduler)
    : ForwardingDevice(std::move(inner)), scheduler_(std::move(scheduler)) {}

const DeviceScheduler* findScheduler(const hal::SharedDevice& device) {
  const auto* scheduled = hal::findDecorator<ScheduledDevice>(device.get());
  return scheduled != nullptr ? &scheduled->scheduler() : nullptr;
}

hal::SharedDevice ScheduledDevice::create(hal::SharedDevice inner, SchedulerOptions options) {
  return std::make_shared<ScheduledDevice>(std::move(inner), std::make_shared<DeviceScheduler>(std::move(options)));
}

template <typename Prepare>
hal::Result<hal::SharedPreparedModel> ScheduledDevice::schedulePreparation(hal::Priority priority,
                                                                           const hal::OptionalTimePoint& deadline,
                                                                           const hal::Model* model,
                                                                           Prepare prepare) const {
  NN_ASSIGN_OR_RETURN(const hal::OptionalDuration left, timeLeft(deadline, "preparation"));
  const auto& preparationTime = scheduler_->options().preparationTime;
  // The device takes the preparation at its arrival, as it takes an execution, and the cost is
  // corrected once the preparation is done. Placed only then, a preparation timed by the host
  // clock (a backend library's) would occupy the device a second time after it had already
  // taken that long: every execution behind it waited as long again in simulated time, and
  // paced, the client did too.
  TimelineJobSpec spec;
  spec.priority = priority;
  spec.arrival = scheduler_->now();
  if (left.has_value()) spec.deadline = spec.arrival + *left;
  if (model != nullptr && preparationTime) spec.segments = {boundedJobTime(preparationTime(*model))};
  spec.costUnknown = spec.segments.empty();
  spec.label = "preparation";
  NN_ASSIGN_OR_RETURN(const DeviceTimeline::JobId placed, scheduler_->place(spec));
  // Host time on the scheduler's clock, which is the host's in a server (a test's, in a test).
  const TimePoint hostStart = scheduler_->now();
  auto prepared = prepare();
  if (!prepared.ok()) {
    scheduler_->cancel(placed);
    return prepared.error();
  }
  // A model prepared from cache is known only to the device that loaded it.
  if (model == nullptr) model = (*prepared)->getModel();
  std::vector<hal::OperandType> outputTypes;
  if (model != nullptr) {
    for (uint32_t index : model->main.outputIndexes) {
      outputTypes.push_back(index < model->main.operands.size() ? model->main.operands[index].type
                                                                : hal::OperandType{});
    }
  }
  const std::vector<Duration> own = {boundedJobTime(
      model != nullptr && preparationTime ? preparationTime(*model)
                                          : std::chrono::duration_cast<Duration>(scheduler_->now() - hostStart))};
  if (left.has_value() && own.front() > *left) {
    scheduler_->cancel(placed);
    return tooLongForDeadline("preparation", own.front(), *left);
  }
  const JobResult job = scheduler_->finish(placed, own != spec.segments ? &own : nullptr);
  if (job.placement.stopped) return stoppedForDeadline("preparation", job);
  return hal::SharedPreparedModel(std::make_shared<ScheduledPreparedModel>(std::move(prepared).value(), scheduler_,
                                                                           priority, std::move(outputTypes)));
}

hal::Result<hal::SharedPreparedModel> ScheduledDevice::prepareModel(
    const hal::Model& model, hal::ExecutionPreference preference, hal::Priority priority,
    const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
    const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const {
  return schedulePreparation(priority, deadline, &model, [&] {
    return inner()->prepareModel(model, preference, priority, std::nullopt, modelCache, dataCache, token);
  });
}

hal::Result<hal::SharedPreparedModel> ScheduledDevice::prepareModelFromCache(
    const hal::OptionalTimePoint& deadline, const std::vector<hal::CacheFile>& modelCache,
    const std::vector<hal::CacheFile>& dataCache, const hal::CacheToken& token) const {
  return schedulePreparation(hal::Priority::MEDIUM, deadline, nullptr, [&] {
    return inner()->prepareModelFromCache(std::nullopt, modelCache, dataCache, token);
  });
}

hal::Result<hal::SharedBuffer> ScheduledDevice::allocate(const hal::BufferDesc& desc,
                                                         const std::vector<hal::SharedPreparedModel>& preparedModels,
                                                         const std::vector<hal::BufferRole>& inputRoles,
                                                         const std::vector<hal::BufferRole>& outputRoles) const {
  std::vector<hal::SharedPreparedModel> unwrapped;
  for (const auto& preparedModel : preparedModels) unwrapped.push_back(unwrapScheduled(preparedModel));
  return inner()->allocate(desc, unwrapped, inputRoles, outputRoles);
}

}  // namespace nnremote::middleware
