// nnremote: the command-line client for npu_emulator. See --help.
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "emulator/crash_handlers.h"
#include "emulator/crash_report.h"
#include "flags/command_line.h"
#include "tools/bench_command.h"
#include "tools/conform_command.h"
#include "tools/connection_flags.h"
#include "tools/cost_command.h"
#include "tools/devices_command.h"
#include "tools/farm_command.h"
#include "tools/graph_command.h"
#include "tools/load_command.h"
#include "tools/replay_command.h"
#include "tools/sample_command.h"
#include "tools/trace_command.h"

namespace {

constexpr const char* kUsage = R"(usage: nnremote COMMAND [FLAGS]

Flags are --name=VALUE (or --name VALUE); a flag file holds one per line (# comments) and is read
with --flagfile=FILE, e.g. a farm's --target and --tls-* flags. A command refuses the flags of
other commands. --helpfull lists every flag with its type and default.

Commands:
  devices      list the devices an emulator serves: name, type, version, feature level,
               extensions
  run-sample   prepare a small sample CNN on each device (or --device) through the proxy driver,
               execute it with timing, and print the outputs, output shapes and timing
  conform      run AOSP CTS/VTS conformance models (../shared/conformance format) and check
               them with the CTS tolerances
  trace        run a model with timing and print where the device time goes, operation by
               operation; optionally write a Chrome trace (Perfetto) and an HTML timeline
  cost         price SCALE-Sim layers with nnremote's timing model: reads SCALE-Sim v2's
               config and topology files unchanged, prints its COMPUTE_REPORT.csv layout
  load         drive many clients at one emulator (like Triton's perf_analyzer) and print one
               summary line: latencies, throughput, and every failure by status
  bench        like load, with timing on every execution, and write an HTML report with plots
               (latency percentiles and histogram, throughput over time, device time next to
               wall time, where the device time goes) and optionally JSON
  graph        draw a model's graph as Graphviz DOT or an HTML page: operations, operands with
               types and shapes, and each operation's simulated device time
  replay       run a recording (npu_emulator --record=DIR) against another server or backend
               and compare outputs, statuses and timing with what was recorded
  farm list    print a farm's device pool in etcd: device, address, type, load, queue, holder
  farm wait    wait until a pool has --devices=N devices (for scripts)

Flags (every command but cost and graph, which use no server):
  --target=ADDR   the npu_emulator to use: unix:PATH, unix-abstract:NAME or HOST:PORT. Without
                  it, nnremote starts an emulator inside this process on the default simulated
                  NPUs (nnremote-edge16, nnremote-large128) and still goes through the proxy
                  driver and gRPC.
                  A farm's pool (docs/farm.md):
                  etcd://HOST:PORT[,HOST:PORT...]/POOL[?device=NAME|type=TYPE][&exclusive=1]
                  picks the least-loaded matching device of POOL; with exclusive=1, one nobody
                  holds, held (an etcd transaction on this process's lease) until nnremote ends
                  or dies. TYPE is accelerator, cpu, gpu or other.
  --wait=DURATION with an etcd:// target, how long to wait for a matching (free) device, e.g.
                  30s (the default), 500ms or 2m; then nnremote fails naming what the pool has
  --device=NAME   the device to use (default: the first one; run-sample: all of them)
  --tls-ca=PEM    connect over TLS, trusting this CA for the server's certificate
  --tls-cert=PEM --tls-key=PEM
                  this client's certificate and key, for a server that wants mutual TLS
  --tls-server-name=NAME
                  the name the server's certificate must carry, when the address's host is not it
  --token-file=FILE
                  send the token in FILE as "authorization: Bearer TOKEN" on every call
  --vlog=TAGS     (every command) log what the proxy driver does to stderr, by tag:
                  compilation, execution, burst, fence, wire, runtime, or all (comma-separated;
                  same as NNREMOTE_VLOG=TAGS)
  --no-reconnect  when the server goes away, fail every later call with DEAD_OBJECT instead of
                  waiting (up to 10 s) for it to come back and carrying on in a new session

Flags (run-sample):
  --priority=P    low, medium (default) or high: the priority the model is prepared with
  --deadline-us=D each execution's deadline, D microseconds after it starts (a whole number
                  > 0). A failure is printed by its status, e.g. MISSED_DEADLINE_PERSISTENT

Flags (conform):
  --cases=DIR     a folder of conformance JSON files, searched recursively, or one such file
                  (required)
  --junit=FILE    also write the results as JUnit XML (unsupported models are "skipped")
  --executor=E    sync (default), async (hal::executeAsync), reusable (one execution computed
                  twice), burst (on a burst stream, or the shared-memory queue when the
                  emulator is on this host; pools cached) or fenced (after a fence)
  --memory=M      where request pools live: bytes (process memory, sent by value; the default),
                  shm (POSIX shared memory, registered with the server: zero copy) or device
                  (device buffers: inputs copied in, outputs copied out)
  --in-process    run the simulator directly, without emulator, gRPC and proxy driver
  --cache-dir=DIR compilation caching: prepare every model saving a cache in DIR (created if
                  missing; the files are reused from model to model), then prepare it again from
                  that cache; both preparations are executed and checked. Through the proxy the
                  files stay on this host and only their bytes travel (docs/caching.md)
  --verbose       also print a line for every unsupported model
  --shard=I/N     run only the I-th of N deterministic slices of the models (I from 0 to N-1:
                  every N-th model, counted over the sorted files); without it, Bazel's
                  TEST_SHARD_INDEX and TEST_TOTAL_SHARDS do the same, and TEST_SHARD_STATUS_FILE
                  is touched. With an etcd:// target, a model that finds its device lost
                  (DEAD_OBJECT) is run again on another device of the pool
  conform prints a line per failing model with the first mismatching element, and ends with
  "N passed, N failed, N unsupported". It exits 1 if any model failed. A model marked
  expect_failure passes when preparation or execution is refused with an error; every model goes
  to the server (the proxy's own model checks are off), so the server's checks are tested. WHILE
  loops get a 200 ms loop timeout (the CTS's infinite loops must run into it).

Flags (trace):
  --model=NAME    a built-in model (below; default mobilenet), or with --cases the model of that
                  name in the file (default: its first)
  --cases=FILE    price any model in the conformance JSON format (../shared/conformance/README.md)
                  instead of a built-in one; it runs on that model's own inputs
  --config=NPUS   without --target, the simulated NPUs of the emulator nnremote starts: presets or
                  NpuConfig textprotos, as npu_emulator --config (default: edge16,large128);
                  --device picks one (default: the first)
  trace prints a line per operation, the totals, and "simulated: X ms", the whole model's time
  on the simulated NPU
  --json=FILE     write a Chrome trace-event JSON file: open it at ui.perfetto.dev (Open trace
                  file) or chrome://tracing
  --html=FILE     write a self-contained HTML/SVG timeline that opens in any browser offline

Flags (load):
  --model=NAME       a built-in model (below; default sample)
  --clients=N        clients, each with a session of its own (default 1, at most 1024)
  --priority=P       low, medium (default) or high, for every client
  --seconds=S        how long the clients run (default 10)
  --executor=E       sync (default) or burst
  --idle-sessions=K  sessions opened first and held, doing nothing (default 0)
  --deadline-us=D    a deadline for each execution, D microseconds after it starts
  load prints a line "errors: STATUS=N ..." when anything failed, then exactly one line
  "priority=P clients=N executions=N errors=N p50_us=X p99_us=Y throughput_per_s=Z reconnects=R"
  (latencies are the clients' wall clock, over successful executions; R counts the sessions
  clients replaced after losing the server). Several loads may run
  at once against one emulator; each reports its own line.

Flags (farm list, farm wait):
  --etcd=HOST:PORT[,HOST:PORT...]
                  the etcd cluster the emulators register in (npu_emulator --etcd)
  --pool=NAME     the pool (default: default)
  --devices=N     farm wait: how many devices to wait for (default 1)
  --wait=DURATION farm wait: how long (default 30s); then it prints the pool and exits 1

Flags (bench): load's --model, --clients, --seconds, --priority and --executor, and
  --html=FILE     the report: one self-contained page, plots drawn inline (required)
  --json=FILE     the same numbers as JSON
  bench ends with "executions=N errors=N p50_us=X p99_us=Y throughput_per_s=Z" and exits 1 if
  any execution failed.

Flags (graph):
  --cases=FILE    a conformance-format JSON file; --model=NAME picks one of its models (default:
                  the first). Without --cases, --model names a built-in model (default mobilenet)
  --format=F      dot (default: Graphviz, e.g. | dot -Tsvg) or html (a self-contained page, with
                  each operation's device time from one in-process run on the simulated NPU)
  --config=PRESET the simulated NPU the HTML's costs come from (default edge16)
  --output=FILE   write there instead of standard output

Flags (replay):
  --recording=DIR the folder npu_emulator --record wrote (its *.nnrec files, read one entry at a
                  time, never whole), or one file of it
  --device=NAME   replay everything on this device (default: the device of the recorded name)
  --exact         compare outputs byte for byte (default: the CTS tolerances of each output's
                  type, as conform does)
  --html=FILE     write a self-contained report: the differences, each model's device time
                  recorded and replayed side by side, and a log-log plot of the two
  replay prints a line per differing execution, then "N replayed, N matched, N differed". It
  exits 1 if any differed. A model the target refuses to prepare differs on every execution.

Flags (cost):
  --scalesim-config=FILE  a SCALE-Sim .cfg (ArrayHeight, ArrayWidth, *SramSzkB, Dataflow,
                          Bandwidth, InterfaceBandwidth CALC or USER)
  --topology=FILE         a SCALE-Sim topology CSV: conv layers (name, IFMAP Height, IFMAP Width,
                          Filter Height, Filter Width, Channels, Num Filter, Strides)
  --gemm                  the topology lists GEMMs instead (name, M, N, K)
  --output=FILE           write the report there instead of standard output
  --count-cycles          report the number of cycles instead of SCALE-Sim's last-cycle index
                          (one less); by default the report matches SCALE-Sim's convention

Built-in models (--model): sample, a small CNN; and image networks built in code with their
reference architectures' layer shapes and fixed pseudo-random weights, each as float32 (NAME)
and quant8 (NAME-quant8): mobilenet (MobileNet v1 1.0-224), mobilenet-0.25 (MobileNet v1
0.25-224), mobilenet-v2 (1.0-224), inception-v1 (224, as TF-slim builds it), inception-v4
(299x299, as TF-slim builds it), squeezenet (v1.0, 224), resnet50 (v1, 299x299), mobilenet-ssd
(MobileNet v1 SSD 300, ending in DETECTION_POSTPROCESSING; 4 outputs), mobilenet-v2-ssd (the
same head on MobileNet v2).

Examples:
  nnremote devices --target=unix:/tmp/nnremote.sock
  nnremote run-sample
  nnremote conform --cases=../shared/conformance/V1_0 --junit=conform.xml
  nnremote cost --scalesim-config=scale.cfg --topology=alexnet.csv
  nnremote load --target=unix:/tmp/nnremote.sock --model=mobilenet --clients=4 --priority=low --seconds=30
  nnremote run-sample --deadline-us=5 --priority=high
  nnremote graph --cases=../shared/conformance/V1_0/conv_float.json --format=html --output=conv.html
  nnremote bench --target=unix:/tmp/nnremote.sock --model=mobilenet --clients=4 --seconds=10 --html=bench.html
  nnremote farm wait --etcd=127.0.0.1:2379 --pool=lab --devices=4 --wait=60s
  nnremote conform --target='etcd://127.0.0.1:2379/lab?exclusive=1' --cases=../shared/conformance --shard=0/8
  nnremote replay --recording=/tmp/rec --target=unix:/tmp/board.sock --device=armnn-cpuref --html=replay.html
)";

struct Command {
  const char* name;
  int (*run)();
  std::set<std::string> flags;  // those it takes, spelled as on the command line
};

const std::vector<Command>& commands() {
  using namespace nnremote::tools;
  static const auto* commands = new std::vector<Command>{
      {"devices", runDevices, withConnectionFlags({})},
      {"run-sample", runSample, withConnectionFlags({"device", "priority", "deadline-us"})},
      {"conform", runConform,
       withConnectionFlags(
           {"cases", "device", "junit", "in-process", "verbose", "executor", "memory", "cache-dir", "shard"})},
      {"cost", runCost, {"scalesim-config", "topology", "gemm", "output", "count-cycles"}},
      {"trace", runTrace, withConnectionFlags({"device", "model", "cases", "config", "json", "html"})},
      {"load", runLoad,
       withConnectionFlags(
           {"device", "model", "clients", "priority", "seconds", "executor", "idle-sessions", "deadline-us"})},
      {"replay", runReplay, withConnectionFlags({"recording", "device", "exact", "html"})},
      {"graph", runGraph, {"cases", "model", "format", "output", "config"}},
      {"bench", runBench,
       withConnectionFlags({"device", "model", "clients", "priority", "seconds", "executor", "html", "json"})},
      {"farm list", runFarmList, {"etcd", "pool"}},
      {"farm wait", runFarmWait, {"etcd", "pool", "devices", "wait"}},
  };
  return *commands;
}

const Command& command(const std::string& name) {
  static const Command kUnknown{nullptr, nullptr, {}};
  for (const auto& candidate : commands()) {
    if (name == candidate.name) return candidate;
  }
  return kUnknown;
}

// "devices, run-sample, ...": what a mistyped command is told it could have been.
std::string commandNames() {
  std::string names;
  for (const auto& candidate : commands()) names += (names.empty() ? "" : ", ") + std::string(candidate.name);
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::vector<std::string> positional = nnremote::flags::parseCommandLine(argc, argv, kUsage);
  // "farm list" and "farm wait" are one command in two words.
  if (positional.size() >= 2 && positional[0] == "farm") {
    positional[0] += " " + positional[1];
    positional.erase(positional.begin() + 1);
  }
  if (positional.size() == 1 && positional[0] == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (positional.size() != 1) {
    std::cerr << "nnremote: " << (positional.empty() ? "no command given" : "one command at a time, not '" +
                                                                                 positional[1] + "' as well")
              << "\n\n" << kUsage;
    return 2;
  }
  const Command& chosen = command(positional[0]);
  if (chosen.run == nullptr) {
    // Not the whole usage: the line that says what is wrong would scroll out of sight.
    std::cerr << "nnremote: "
              << (positional[0] == "farm" || positional[0].rfind("farm ", 0) == 0
                      ? "'" + positional[0] + "': farm takes list or wait ('nnremote farm list')"
                      : "unknown command '" + positional[0] + "'")
              << "; the commands: " << commandNames() << " (nnremote --help)\n";
    return 2;
  }
  if (auto accepted = nnremote::flags::checkOnlyAcceptedFlagsGiven(chosen.flags); !accepted.ok()) {
    std::cerr << "nnremote " << chosen.name << ": " << accepted.error().message << " (nnremote --help)\n";
    return 2;
  }
  // A crash says where (docs/backends.md#reading-a-crash-report): a test farm's shard that dies
  // would otherwise leave only an empty log.
  nnremote::emulator::prepareCrashReports(std::string("the command '") + chosen.name + "'", "nnremote");
  nnremote::emulator::installCrashHandlers();
  return chosen.run();
}
