// npu_emulator: serves simulated NPUs over gRPC. See --help.
#include <chrono>
#include <iostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "drivers/proxy/channel_security.h"
#include "emulator/backend_host.h"
#include "emulator/backend_loader.h"
#include "emulator/crash_handlers.h"
#include "emulator/crash_report.h"
#include "emulator/device_stack.h"
#include "emulator/remote_devices.h"
#include "emulator/serve_until_stopped.h"
#include "emulator/server_config.h"
#include "emulator/zygote.h"
#include "hal/compilation_cache.h"
#include "hal/file_contents.h"
#include "flags/command_line.h"
#include "flags/flag_types.h"
#include "flags/named_flag.h"

namespace {

constexpr const char* kUsage = R"(usage: npu_emulator [--listen=ADDR] [--config=DEVICES] [--backend=PATH.so[:ARG]]...
                    [--backend-in-process] [--pace=realtime]
                    [--server-config=FILE] [--tls-cert=PEM --tls-key=PEM [--client-ca=PEM]]
                    [--tokens=FILE] [--insecure] [--socket-group=GROUP]
                    [--state-dir=DIR] [--record=DIR] [--dump-graphs=DIR]
                    [--vlog=TAGS] [--fault=KIND:AFTER_N[:DEVICE]]
                    [--remote-tls-ca=PEM [--remote-tls-cert=PEM --remote-tls-key=PEM]]
                    [--remote-tls-server-name=NAME] [--remote-token-file=FILE]

Serves NPUs to nnremote proxy drivers over gRPC until interrupted (Ctrl-C or SIGTERM): simulated
ones, those of backend libraries, and those of other emulators.
Flags are --name=VALUE (or --name VALUE); --flagfile=FILE reads them from a file, one per line
(# comments), as farm deployments keep them. --helpfull lists every flag with its type and
default. A wrong flag or value exits with status 2, naming the flag.
Each device is one busy NPU shared by every client: executions and preparations from all
sessions queue on its simulated timeline by priority (HIGH, MEDIUM, LOW, with aging) and
arrival, higher priorities preempt at operation boundaries, and deadlines are judged on that
timeline (docs/scheduler.md).

  --listen=ADDR     where to listen (default unix:/tmp/nnremote.sock):
                      unix:PATH            a unix socket on this host
                      unix-abstract:NAME   a Linux abstract unix socket
                      HOST:PORT            TCP, e.g. 127.0.0.1:50051, 0.0.0.0:50051 or
                                           [::]:50051 (an IPv6 host in brackets); port 0
                                           picks a free port and prints it
                    A TCP listener needs TLS (--tls-cert, --tls-key) or --insecure. An
                    address another server listens on is refused as in use.
  --config=DEVICES  the simulated NPUs to serve, comma-separated; each is a preset name or a
                    path to an NpuConfig textproto (docs/npu_config.md). Default: edge16,large128.
                    Presets:
                      edge16      nnremote-edge16: 16x16 output-stationary array @ 800 MHz
                      large128    nnremote-large128: 128x128 weight-stationary array @ 1 GHz
                      scalesim32  nnremote-scalesim32: SCALE-Sim's example 32x32 configuration
                      edgetpu     nnremote-edgetpu: Google's Edge TPU from its public facts: 64x64
                                  array @ 480 MHz, 8 MiB parameter cache, PCIe host link, SSD
                                  postprocessing on the board's CPU; 18.8 us per operation,
                                  fitted to Coral's published latencies
                      vs680       nnremote-vs680: the NPU of Synaptics' VS680 from SyNAP's
                                  published peak: 64x64 array @ 934 MHz, weights in DRAM;
                                  10.7 us per operation, fitted to SyNAP's published latencies
                    An entry remote:ADDR serves the devices of the npu_emulator at ADDR (plain
                    TCP or a unix socket), through the proxy driver, under their own names:
                    chaining, so that this host can front another (a dev board). Their errors,
                    DEAD_OBJECT included, reach this emulator's clients. The --remote-* flags
                    secure that hop as nnremote's --tls-* and --token-file do: TLS trusting
                    --remote-tls-ca, mutual TLS with --remote-tls-cert and --remote-tls-key, and
                    a bearer token from --remote-token-file.
                    The simulator is itself a backend library (sim_backend.so, found next to
                    this binary or at $NNREMOTE_SIM_BACKEND); --config=X is --backend=it:X.
  --backend=PATH.so[:ARG]
                    also serve the devices of a backend library (docs/backends.md), e.g.
                    bazel-bin/drivers/armnn/armnn_backend.so:CpuRef; ARG is the library's own.
                    Repeatable. With --backend and no --config, only the backends' devices are
                    served. A library that cannot be loaded, speaks another ABI version or fails
                    is reported here, at startup.
                    Each library runs in a supervised child process of its own (this binary, as
                    a backend host): if it crashes, hangs or breaks a limit, only that child ends;
                    calls in flight on its devices fail with DEAD_OBJECT naming the cause, a
                    crashed child (or a hung call's thread) writes its stack on stderr, and the
                    child is restarted with backoff. A crash loop makes its devices unavailable,
                    as `nnremote devices`, the farm's pool and /metrics show. Health checks,
                    limits and the crash loop are set by backend_isolation in --server-config
                    (docs/backends.md#isolation, and #reading-a-crash-report there for crash
                    reports).
  --backend-in-process
                    load --backend libraries into this process instead: no process hop, but a
                    crash in a library ends the server for every client (with a crash report on
                    stderr)
  --pace=MODE       none (default): answer as fast as the host simulates; timing and deadlines
                    are still judged on the simulated timeline, so they do not depend on the
                    host's speed. A client faster than the simulated device gets ahead of the
                    clock by at most the queue depth's worth of work, then waits for it.
                    realtime: the wall clock follows the timeline: an execution returns when it
                    ends there, after queueing and preemption.
  --server-config=FILE
                    a ServerConfig textproto (emulator/server_config.proto, docs/scheduler.md):
                    per-session quotas (prepared models, pool memory, device buffers,
                    executions in flight and kept, fences, bursts), sessions per identity, the
                    pool memory all clients together may have the server allocate (default:
                    half of this machine's), the memory gRPC may hold for messages in transit
                    (default 1 GiB), how long a connection may stay silent or without a call
                    (20 s, 5 minutes), scheduling (queue depth per device, priority aging) and
                    which devices an identity may see. Unset fields keep generous defaults.
  --state-dir=DIR   where the server keeps what outlives it: the key that seals compilation
                    caches (DIR/compilation-cache.key, made on first start, 0600). Without it
                    the key is random per run, and caches saved before a restart are refused
                    (GENERAL_FAILURE; the client prepares again). Cache files themselves stay
                    with the clients (docs/caching.md).

  --record=DIR      write what every device is asked and answers (models, requests with their
                    inputs, outputs, statuses, timing) to DIR/<time>-<pid>.nnrec, as
                    length-delimited protobuf; `nnremote replay` runs it against another server
                    or backend and compares (docs/backends.md#record-and-replay)
  --dump-graphs=DIR write every model a device is asked to prepare as DIR/<device>-<n>.dot
                    (Graphviz) and .html (operations, operands with types and shapes), before
                    preparing it; `nnremote graph` draws a model file the same way
  --vlog=TAGS       log what the server does to stderr, by tag: compilation, execution, burst,
                    fence, wire, runtime, or all (comma-separated; same as NNREMOTE_VLOG=TAGS).
                    Off, it costs nothing measurable (docs/diagnostics.md)

Farms (docs/farm.md): register the devices in a pool that clients find through etcd
(nnremote --target=etcd://HOST:PORT/POOL, nnremote farm list):
  --etcd=HOST:PORT[,HOST:PORT...]
                    the etcd cluster's members (its v3 gRPC API). Each device is registered
                    under /nnremote/pools/POOL/devices/ADDRESS/DEVICE with its address, type,
                    version, NPU, load and queue depth, on a lease the emulator keeps alive. If
                    etcd cannot be reached, the emulator retries with backoff and serves its
                    clients meanwhile; a stop (Ctrl-C, SIGTERM) deletes the keys at once
  --advertise=ADDR  the address the pool gives clients (default: the one listened on; needed
                    when listening on 0.0.0.0 or [::])
  --pool=NAME       the pool to register in (default: default)
  --etcd-ttl=S      the lease's time to live, 2 to 60 s (default 5): a dead emulator's devices
                    leave the pool this long after it died
  --metrics=HOST:PORT
                    serve Prometheus metrics at http://HOST:PORT/metrics (port 0 picks one and
                    prints it): executions by device, priority and status; latency and
                    queue-wait histograms; simulated device time; queue depth; sessions;
                    prepared models; bytes in and out by transport (inline, bulk, shared memory).
                    HOST is an IPv4 address or name: Debian's civetweb, which serves the page,
                    has no IPv6

Security (docs/security.md). Every session belongs to the identity that opened it, and only
that identity can use it and its handles:
  --tls-cert=PEM --tls-key=PEM
                    serve TCP over TLS with this certificate chain and key
  --client-ca=PEM   mutual TLS: clients must present a certificate signed by this CA; the
                    certificate's subject (e.g. CN=alice) is the client's identity
  --tokens=FILE     lines of "IDENTITY TOKEN": every call must carry
                    "authorization: Bearer TOKEN" for one of them (UNAUTHENTICATED otherwise),
                    on any transport; the token's IDENTITY is the client's
  --insecure        allow TCP without TLS; anyone who reaches the port can use the devices
  --socket-group=GROUP
                    a unix socket is created mode 0600 (its owner only); with a group it is 0660
                    and owned by GROUP. Clients on a unix socket are "uid:N".

Testing:
  --fault=KIND:AFTER_N[:DEVICE], --fault=KIND:op=OPERATION[:DEVICE]
                    inject a fault into execution number AFTER_N + 1 (counted over every
                    executor; preparations do not count), or into every execution of a model
                    with an OPERATION (e.g. CONV_2D), on DEVICE only if given:
                      crash     the process kills itself (SIGKILL): clients see DEAD_OBJECT
                      hang      the execution never returns (until shutdown)
                      kernel_hang
                                the same, asleep in the kernel where no signal reaches it
                                (state D), as a driver's ioctl that never returns
                      slow      the execution first sleeps 5 s
                      error     the execution fails with GENERAL_FAILURE
                      abort     abort(), as a failed assertion in vendor code does
                      segfault  a write through a null pointer
                      overflow  recursion until the thread's stack overflows
                      thread_overflow
                                the same on a thread the library started itself
                      spin      the execution burns CPU time and never returns
                      allocate  the execution allocates address space until an allocation fails
                      no_shapes not a failure: the execution answers without output shapes,
                                as the HAL allows where they were fully specified
                    A DEVICE served by a backend host gets the fault in that child (its first
                    one), which it then ends instead of this server.
                    e.g. --fault=crash:100 or --fault=hang:0:nnremote-edge16 (docs/security.md)
  --help            show this text
)";

// Reads each PEM flag that was given into its place in `security`; errors name the flag.
nnremote::hal::Status readSecurityFiles(const std::string& cert, const std::string& key, const std::string& clientCa,
                                        nnremote::emulator::ServerSecurity* security) {
  const std::tuple<const char*, const std::string*, std::string*> files[] = {
      {"--tls-cert", &cert, &security->tlsCertPem},
      {"--tls-key", &key, &security->tlsKeyPem},
      {"--client-ca", &clientCa, &security->clientCaPem}};
  for (const auto& [flag, path, into] : files) {
    if (path->empty()) continue;
    NN_ASSIGN_OR_RETURN(*into, nnremote::proxy::readSecret(*path, flag));
  }
  return {};
}

}  // namespace

// The help text of each flag is the short form; the usage text above explains them
// (npu_emulator --help), and --helpfull lists every flag with its type and default.
enum class Pace { kNone, kRealtime };
bool AbslParseFlag(absl::string_view text, Pace* pace, std::string* error) {
  if (text == "none" || text == "realtime") {
    *pace = text == "none" ? Pace::kNone : Pace::kRealtime;
    return true;
  }
  *error = "must be none or realtime";
  return false;
}
std::string AbslUnparseFlag(Pace pace) { return pace == Pace::kNone ? "none" : "realtime"; }

// --backend may be given many times, and its ARG may hold commas: absl keeps a flag's last
// value, so every value it parses is collected here as it is set.
std::vector<std::string>& backendFlags() {
  static auto* given = new std::vector<std::string>;
  return *given;
}
void collectBackendFlag();

using ListenAddress =
    nnremote::flags::AddressFlag<nnremote::wire::AddressUse::kListen, nnremote::flags::AddressForms::kAny>;
using MetricsAddress =
    nnremote::flags::AddressFlag<nnremote::wire::AddressUse::kListen, nnremote::flags::AddressForms::kTcpOnly>;
using AdvertisedAddress =
    nnremote::flags::AddressFlag<nnremote::wire::AddressUse::kConnect, nnremote::flags::AddressForms::kAny>;
NNREMOTE_FLAG(ListenAddress, listen, "listen", ListenAddress{nnremote::emulator::kDefaultListenAddress},
              "where to listen: unix:PATH, unix-abstract:NAME or HOST:PORT");
NNREMOTE_FLAG(std::string, config, "config", "",
              "the simulated NPUs to serve, comma-separated: presets, NpuConfig textprotos, remote:ADDR");
NNREMOTE_FLAG(std::string, backend, "backend", "", "PATH.so[:ARG]: also serve a backend library's devices; repeatable")
    .OnUpdate(collectBackendFlag);
NNREMOTE_FLAG(bool, backend_in_process, "backend-in-process", false,
              "load --backend libraries into this process instead of supervised child processes");
NNREMOTE_FLAG(int, backend_host, "backend-host", -1,
              "internal: serve one backend library for the npu_emulator that started this one, on channel FD");
NNREMOTE_FLAG(int, backend_zygote, "backend-zygote", -1,
              "internal: fork backend hosts for the npu_emulator that started this one, on channel FD");
NNREMOTE_FLAG(Pace, pace, "pace", Pace::kNone, "none or realtime");
NNREMOTE_FLAG(std::string, server_config, "server-config", "", "a ServerConfig textproto: quotas and scheduling");
NNREMOTE_FLAG(std::string, state_dir, "state-dir", "", "where the compilation-cache key is kept");
NNREMOTE_FLAG(std::string, record, "record", "", "record every device's requests and answers to DIR");
NNREMOTE_FLAG(std::string, dump_graphs, "dump-graphs", "", "write every prepared model's graph to DIR");
NNREMOTE_FLAG(std::string, tls_cert, "tls-cert", "", "serve TCP over TLS with this PEM certificate chain");
NNREMOTE_FLAG(std::string, tls_key, "tls-key", "", "the PEM private key of --tls-cert");
NNREMOTE_FLAG(std::string, client_ca, "client-ca", "", "mutual TLS: the PEM CA client certificates must chain to");
NNREMOTE_FLAG(std::string, tokens, "tokens", "", "a file of IDENTITY TOKEN lines: bearer tokens");
NNREMOTE_FLAG(bool, insecure, "insecure", false, "allow TCP without TLS");
NNREMOTE_FLAG(std::string, socket_group, "socket-group", "", "make the unix socket 0660 and owned by GROUP");
NNREMOTE_FLAG(std::string, remote_tls_ca, "remote-tls-ca", "", "remote:ADDR over TLS, trusting this PEM CA");
NNREMOTE_FLAG(std::string, remote_tls_cert, "remote-tls-cert", "", "remote:ADDR: this server's PEM client certificate");
NNREMOTE_FLAG(std::string, remote_tls_key, "remote-tls-key", "", "remote:ADDR: the PEM key of --remote-tls-cert");
NNREMOTE_FLAG(std::string, remote_tls_server_name, "remote-tls-server-name", "",
              "remote:ADDR: the name its certificate must carry");
NNREMOTE_FLAG(std::string, remote_token_file, "remote-token-file", "", "remote:ADDR: send the bearer token in FILE");
NNREMOTE_FLAG(std::string, fault, "fault", "", "KIND:AFTER_N[:DEVICE]: inject a fault (testing)");
NNREMOTE_FLAG(std::string, etcd, "etcd", "", "HOST:PORT[,...]: register the devices in an etcd pool");
NNREMOTE_FLAG(AdvertisedAddress, advertise, "advertise", {}, "the address the pool gives clients");
NNREMOTE_FLAG(std::string, pool, "pool", "default", "the etcd pool to register in");
NNREMOTE_FLAG(MetricsAddress, metrics, "metrics", {}, "HOST:PORT: serve Prometheus metrics on /metrics");
using LeaseSeconds = nnremote::flags::WholeNumber<2, 60>;
NNREMOTE_FLAG(LeaseSeconds, etcd_ttl, "etcd-ttl", LeaseSeconds{5},
              "seconds a dead emulator's devices stay in the pool");

void collectBackendFlag() {
  // Also called once as the flag is registered, with its empty default.
  if (std::string value = absl::GetFlag(FLAGS_backend); !value.empty()) backendFlags().push_back(std::move(value));
}

namespace nnremote::emulator {
namespace {

// What the flags ask for. `limits` is --server-config's; the stack's isolation points into it.
struct EmulatorOptions {
  ServerLimits limits;
  DeviceStackOptions stack;
  RunOptions run;
};

// Every error names its flag; npu_emulator exits with status 2 on one.
hal::Status readFlags(EmulatorOptions* options) {
  DeviceStackOptions& stack = options->stack;
  RunOptions& run = options->run;
  stack.config = absl::GetFlag(FLAGS_config);
  if (stack.config.empty() && backendFlags().empty()) stack.config = "default";
  for (const auto& flag : backendFlags()) {
    NN_ASSIGN_OR_RETURN(auto spec, parseBackendSpec(flag));
    stack.backends.push_back(std::move(spec));
  }
  if (const std::string serverConfig = absl::GetFlag(FLAGS_server_config); !serverConfig.empty()) {
    auto loaded = loadServerConfig(serverConfig);
    if (!loaded.ok()) return hal::withContext(loaded.error(), "--server-config");
    options->limits = *loaded;
  }
  run.listen = absl::GetFlag(FLAGS_listen).text;
  run.server.session = options->limits.session;
  run.server.clientAccess = options->limits.clientAccess;
  run.server.security.insecureTcp = absl::GetFlag(FLAGS_insecure);
  NN_RETURN_IF_ERROR(readSecurityFiles(absl::GetFlag(FLAGS_tls_cert), absl::GetFlag(FLAGS_tls_key),
                                       absl::GetFlag(FLAGS_client_ca), &run.server.security));
  if (const std::string tokens = absl::GetFlag(FLAGS_tokens); !tokens.empty()) {
    auto table = loadTokenFile(tokens);
    if (!table.ok()) return hal::withContext(table.error(), "--tokens");
    run.server.security.tokens = std::move(table).value();
  }
  if (const std::string socketGroup = absl::GetFlag(FLAGS_socket_group); !socketGroup.empty()) {
    NN_ASSIGN_OR_RETURN(run.server.security.socketGroup, groupId(socketGroup));
  }
  stack.serving.paceRealtime = run.paceRealtime = absl::GetFlag(FLAGS_pace) == Pace::kRealtime;
  stack.serving.scheduling = options->limits.scheduling;
  if (const std::string stateDir = absl::GetFlag(FLAGS_state_dir); !stateDir.empty()) {
    auto secret = hal::loadOrCreateCacheSecret(stateDir);
    if (!secret.ok()) return hal::withContext(secret.error(), "--state-dir");
    stack.serving.cacheSecret = *secret;
  }
  stack.remote = chainedConnectionOptions();
  NN_ASSIGN_OR_RETURN(stack.remote.security,
                      proxy::readChannelSecurity({absl::GetFlag(FLAGS_remote_tls_ca), absl::GetFlag(FLAGS_remote_tls_cert),
                                                  absl::GetFlag(FLAGS_remote_tls_key),
                                                  absl::GetFlag(FLAGS_remote_tls_server_name),
                                                  absl::GetFlag(FLAGS_remote_token_file)},
                                                 "--remote-"));
  if (!absl::GetFlag(FLAGS_backend_in_process)) stack.isolation = &options->limits;
  stack.fault = run.fault = absl::GetFlag(FLAGS_fault);
  stack.dumpGraphs = absl::GetFlag(FLAGS_dump_graphs);
  stack.record = absl::GetFlag(FLAGS_record);
  run.metrics = absl::GetFlag(FLAGS_metrics).text;
  run.etcd = absl::GetFlag(FLAGS_etcd);
  run.advertise = absl::GetFlag(FLAGS_advertise).text;
  run.pool = absl::GetFlag(FLAGS_pool);
  run.etcdTtl = std::chrono::seconds(absl::GetFlag(FLAGS_etcd_ttl).value);
  return {};
}

}  // namespace
}  // namespace nnremote::emulator

int main(int argc, char** argv) {
  using namespace nnremote::emulator;
  turnOffAbslDeadlockDetection();
  raiseOpenFileLimit();
  const std::vector<std::string> positional = nnremote::flags::parseCommandLine(argc, argv, kUsage);
  if (!positional.empty()) {
    std::cerr << "npu_emulator: unexpected argument '" << positional.front() << "' (flags are --name=VALUE)\n";
    return 2;
  }
  if (const int channel = absl::GetFlag(FLAGS_backend_zygote); channel >= 0) return runHostZygote(channel, argv);
  if (const int channel = absl::GetFlag(FLAGS_backend_host); channel >= 0) return runBackendHost(channel);
  takeStopSignals();  // before stacking the devices starts threads (a backend host's supervisor)
  EmulatorOptions options;
  if (auto read = readFlags(&options); !read.ok()) {
    std::cerr << "npu_emulator: " << read.error().message << "\n";
    return 2;
  }
  // Vendor code in this process: its crash ends the server, which then says where, as a backend
  // host does (docs/backends.md#reading-a-crash-report).
  if (options.stack.isolation == nullptr && !options.stack.backends.empty()) {
    prepareCrashReports("the server");
    installCrashHandlers();
  }
  auto stack = stackDevices(options.stack);
  if (!stack.ok()) {
    std::cerr << "npu_emulator: " << stack.error().message << "\n";
    return 2;
  }
  return serveUntilStopped(std::move(stack).value(), options.run);
}
