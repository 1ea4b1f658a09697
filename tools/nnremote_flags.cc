// Each help text is the short form: `nnremote --help` explains every flag by command, and
// `nnremote --helpfull` lists these with their types and defaults.
#include "tools/nnremote_flags.h"

#include "flags/named_flag.h"

using nnremote::tools::ClientCount;
using nnremote::tools::DeadlineMicros;
using nnremote::tools::DeviceCount;
using nnremote::tools::IdleSessionCount;
using nnremote::tools::LoadSeconds;

NNREMOTE_FLAG(std::string, target, "target", "",
              "the npu_emulator: unix:PATH, unix-abstract:NAME, HOST:PORT or etcd://ENDPOINTS/POOL[?...] "
              "(default: one in this process)");
NNREMOTE_FLAG(std::string, tls_ca, "tls-ca", "", "connect over TLS, trusting this PEM CA");
NNREMOTE_FLAG(std::string, tls_cert, "tls-cert", "", "mutual TLS: this client's PEM certificate");
NNREMOTE_FLAG(std::string, tls_key, "tls-key", "", "mutual TLS: the PEM key of --tls-cert");
NNREMOTE_FLAG(std::string, tls_server_name, "tls-server-name", "", "the name the server's certificate must carry");
NNREMOTE_FLAG(std::string, token_file, "token-file", "", "send the bearer token in FILE on every call");
NNREMOTE_FLAG(bool, no_reconnect, "no-reconnect", false, "fail with DEAD_OBJECT when the server goes away");
NNREMOTE_FLAG(absl::Duration, wait, "wait", absl::Seconds(30),
              "etcd:// targets and farm wait: how long to wait for a (free) device, e.g. 30s or 2m, "
              "asking etcd again meanwhile when it does not answer (a member down, a leader being elected)");
NNREMOTE_FLAG(std::string, etcd, "etcd", "", "farm: the etcd cluster, HOST:PORT[,HOST:PORT...]");
NNREMOTE_FLAG(std::string, pool, "pool", "default", "farm: the pool");
NNREMOTE_FLAG(DeviceCount, devices, "devices", DeviceCount{1}, "farm wait: how many devices to wait for");
NNREMOTE_FLAG(std::string, shard, "shard", "", "conform: I/N runs the I-th (from 0) of N slices of the models");

NNREMOTE_FLAG(std::string, device, "device", "", "the device to use (default: the first)");
NNREMOTE_FLAG(std::string, model, "model", "", "a built-in model, or a model of --cases");
NNREMOTE_FLAG(std::string, cases, "cases", "", "conformance JSON: a folder (conform) or a file (graph)");
NNREMOTE_FLAG(std::string, config, "config", "",
              "presets or NpuConfig textprotos: graph's NPU (default edge16), trace's in-process NPUs");
NNREMOTE_FLAG(nnremote::hal::Priority, priority, "priority", nnremote::hal::Priority::MEDIUM,
              "low, medium or high");
NNREMOTE_FLAG(std::optional<DeadlineMicros>, deadline_us, "deadline-us", std::nullopt,
              "each execution's deadline, in microseconds after it starts");
NNREMOTE_FLAG(std::string, executor, "executor", "sync", "conform: sync, async, reusable, burst or fenced; load: sync or burst");
NNREMOTE_FLAG(std::string, memory, "memory", "bytes", "conform: where request pools live: bytes, shm or device");
NNREMOTE_FLAG(bool, in_process, "in-process", false, "conform: run the simulator directly");
NNREMOTE_FLAG(std::string, cache_dir, "cache-dir", "", "conform: prepare with a compilation cache in DIR, then from it");
NNREMOTE_FLAG(ClientCount, clients, "clients", ClientCount{1}, "load: clients, each with a session of its own");
NNREMOTE_FLAG(LoadSeconds, seconds, "seconds", LoadSeconds{10}, "load: how long the clients run");
NNREMOTE_FLAG(IdleSessionCount, idle_sessions, "idle-sessions", IdleSessionCount{0},
              "load: sessions opened first and held idle");
NNREMOTE_FLAG(std::string, recording, "recording", "",
              "replay: the folder npu_emulator --record wrote, or one of its .nnrec files");
NNREMOTE_FLAG(bool, exact, "exact", false, "replay: compare outputs byte for byte");
NNREMOTE_FLAG(std::string, scalesim_config, "scalesim-config", "", "cost: a SCALE-Sim .cfg");
NNREMOTE_FLAG(std::string, topology, "topology", "", "cost: a SCALE-Sim topology CSV");
NNREMOTE_FLAG(bool, gemm, "gemm", false, "cost: the topology lists GEMMs");
NNREMOTE_FLAG(bool, count_cycles, "count-cycles", false, "cost: report cycle counts, not SCALE-Sim's last index");

NNREMOTE_FLAG(std::string, junit, "junit", "", "conform: also write JUnit XML to FILE");
NNREMOTE_FLAG(std::string, json, "json", "", "trace: write a Chrome trace-event JSON file");
NNREMOTE_FLAG(std::string, html, "html", "", "write a self-contained HTML page to FILE");
NNREMOTE_FLAG(std::string, output, "output", "", "write to FILE instead of standard output");
NNREMOTE_FLAG(std::string, format, "format", "dot", "graph: dot or html");
NNREMOTE_FLAG(bool, verbose, "verbose", false, "conform: print every unsupported model too");

namespace nnremote::tools {

hal::OptionalDuration deadlineFromFlags() {
  const std::optional<DeadlineMicros> micros = absl::GetFlag(FLAGS_deadline_us);
  if (!micros) return std::nullopt;
  return std::chrono::microseconds(micros->value);
}

}  // namespace nnremote::tools
