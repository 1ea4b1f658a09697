// A console reporter that also keeps each benchmark's median real time (from repetitions), so a
// benchmark binary can print ratios between cases measured side by side in one run.
#ifndef NNREMOTE_BENCHMARKS_MEDIAN_REPORTER_H_
#define NNREMOTE_BENCHMARKS_MEDIAN_REPORTER_H_

#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace nnremote::benchmarks {

class MedianReporter : public benchmark::ConsoleReporter {
 public:
  // `summarize` runs after the table, with medians keyed by name ("case/arg", no "/repeats:").
  using Summarize = std::function<void(const std::map<std::string, double>& medians)>;
  explicit MedianReporter(Summarize summarize) : summarize_(std::move(summarize)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.aggregate_name != "median") continue;
      const std::string name = run.benchmark_name();
      medians_[name.substr(0, name.find("/repeats:"))] = run.GetAdjustedRealTime();
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    summarize_(medians_);
  }

 private:
  Summarize summarize_;
  std::map<std::string, double> medians_;
};

// A benchmark binary's main: runs the registered cases with their repetitions taking turns in
// random order, so that a busy machine's drift (another build, the CPU's clock) falls on every
// case alike rather than on whichever ran last; then `summarize` prints the ratios. A flag given
// on the command line still wins.
inline int runInterleaved(int argc, char** argv, MedianReporter::Summarize summarize) {
  std::vector<char*> args(argv, argv + argc);
  char interleave[] = "--benchmark_enable_random_interleaving=true";
  args.insert(args.begin() + 1, interleave);
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  MedianReporter reporter(std::move(summarize));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

}  // namespace nnremote::benchmarks

#endif  // NNREMOTE_BENCHMARKS_MEDIAN_REPORTER_H_
