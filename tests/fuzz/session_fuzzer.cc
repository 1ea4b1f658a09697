// Fuzz target: a session's life on a real server. The bytes choose a sequence of up to 32 RPCs
// on a real npu_emulator server (in this process, over a unix socket, as a client on this host
// reaches it): sessions opened and closed, models prepared and released, executions of every
// kind (sync, started and awaited, fenced on the caller's fences, reusable, on a burst stream),
// shared memory registered and unregistered, bulk uploads (chunks in order or not) and downloads
// (read whole, in part, or twice), models prepared with compilation caches and from what those
// caches held (whole, cut or changed), sessions watched and unwatched on a stream that may be
// cancelled, device buffers allocated, copied and released, fences created, signalled, waited
// on and released. Each call names handles the input made,
// already released, of another session, or made up, and arguments a step from valid. What
// matters is what one call does to the state an earlier one left: a handle used after its
// release, a pool unregistered under a reusable execution or a burst's cache, a session closed
// under a running burst, an execution waiting on a fence whose session is gone. After each input
// every session it opened is closed and the server must still answer a new client; crashes and
// ASan's findings fail it.
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "emulator/emulator_server.h"
#include "hal/memory.h"
#include "hal/model_builder.h"
#include "testing/add_model.h"
#include "tests/fuzz/choices.h"
#include "tests/fuzz/fuzz_target.h"
#include "wire/conversions.h"
#include "wire/nnremote.grpc.pb.h"
#include "wire/wire_constants.h"

namespace {

using namespace nnremote;  // NOLINT: a fuzz target
using fuzz::Choices;

// One call's bound: long enough for any answer the server owes, short enough that a call it
// may rightly hold (an execution waiting on a fence nobody signals) does not stall the fuzzer.
constexpr auto kCallTimeout = std::chrono::milliseconds(500);
constexpr int kMostCalls = 32;
constexpr size_t kSharedBytes = 4096;

// A model over this many floats answers with an output too large to travel inline (4 MiB), so
// it waits for DownloadBulk.
constexpr uint32_t kBigElements = (4u << 20) / 4 + 1;
constexpr uint64_t kBigBytes = uint64_t{kBigElements} * 4;

struct Server {
  std::unique_ptr<emulator::EmulatorServer> server;
  std::unique_ptr<wire::Accelerator::Stub> stub;
  std::unique_ptr<wire::AcceleratorWaits::Stub> waits;
  std::unique_ptr<wire::SessionWatch::Stub> watch;
  std::string device;
  hal::SharedMemory shared;  // a pool the fuzzer's "client" made, for RegisterMemory
};

Server& server() {
  static Server* served = [] {
    auto* s = new Server;
    const std::string address = "unix-abstract:nnremote-session-fuzzer-" + std::to_string(::getpid());
    // Pool memory bounded well inside the fuzzer's own memory limit, so an input that asks for
    // gigabytes meets the quotas rather than the limit.
    emulator::ServerOptions options;
    options.session.registeredMemoryBytes = uint64_t{64} << 20;
    options.session.serverPoolMemoryBytes = uint64_t{256} << 20;
    options.session.keptExecutions = 64;
    auto started = emulator::EmulatorServer::start({fuzz::cachingDevice()}, address, options);
    if (!started.ok()) {
      std::fprintf(stderr, "session_fuzzer: %s\n", started.error().message.c_str());
      std::abort();
    }
    s->server = std::move(started).value();
    auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
    s->stub = wire::Accelerator::NewStub(channel);
    s->waits = wire::AcceleratorWaits::NewStub(channel);
    s->watch = wire::SessionWatch::NewStub(channel);
    s->device = fuzz::cachingDevice()->getName();
    auto shared = hal::createSharedMemory(kSharedBytes);
    if (!shared.ok()) std::abort();
    s->shared = std::move(shared).value();
    return s;
  }();
  return *served;
}

std::unique_ptr<grpc::ClientContext> context() {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + kCallTimeout);
  return c;
}

// out = a + b over float32 [elements] ([0]: the output's shape unknown).
wire::Model addModel(uint32_t elements, bool unknownOutput) {
  hal::ModelBuilder b;
  const uint32_t x = b.addInput(hal::OperandType::TENSOR_FLOAT32, {elements});
  const uint32_t y = b.addInput(hal::OperandType::TENSOR_FLOAT32, {elements});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {unknownOutput ? 0u : elements});
  b.addOperation(hal::OperationType::ADD, {x, y, b.addInt32(0)}, {out});
  return *wire::toWire(b.build());
}

// The models a session may prepare: ADD over [2] (its output's shape known or not), and now and
// then over kBigElements, whose output waits for DownloadBulk.
const wire::Model& model(Choices& in) {
  static const wire::Model* models = [] {
    auto* m = new wire::Model[3];
    m[0] = *wire::toWire(testing::twoInputAddModel());
    m[1] = addModel(2, /*unknownOutput=*/true);
    m[2] = addModel(kBigElements, /*unknownOutput=*/false);
    return m;
  }();
  return models[in.below(16) == 0 ? 2 : in.below(2)];
}

// The handles one input made, released ones included.
// What a compilation cache held after a preparation saved it.
struct SavedCache {
  std::string token;
  std::vector<std::string> model, data;
};

struct Handles {
  std::vector<uint64_t> sessions, prepared, executions, fenced, reusable, fences, memories;
  std::vector<uint64_t> uploads, downloads;  // bulk transfer ids
  std::vector<uint32_t> buffers;
  std::vector<SavedCache> caches;
  // One WatchSessions stream, open across calls until cancelled or the input ends.
  std::unique_ptr<grpc::ClientContext> watchContext;
  std::unique_ptr<grpc::ClientReaderWriter<wire::WatchSessionsRequest, wire::SessionEvent>> watch;

  // Mostly one of `from` (the last ones made the likeliest), now and then 0 or any value.
  template <typename T>
  static T pick(Choices& in, const std::vector<T>& from) {
    const uint8_t choice = in.byte();
    if (!from.empty() && choice < 224) return from[from.size() - 1 - (choice % from.size())];
    return choice < 240 ? T{0} : static_cast<T>(in.word());
  }
};

wire::DataLocation* locate(Choices& in, wire::DataLocation* location, uint32_t index) {
  location->set_pool_index(in.below(8) == 0 ? in.below(3) : 0);
  location->set_offset(in.below(8) == 0 ? in.word() : 8 * index);
  location->set_length(in.below(8) == 0 ? in.below(24) : 8);
  return location;
}

// A request for the large ADD: its inputs in an inline pool of zeros, or in an upload, and its
// output in an inline pool of its own.
wire::Request bigRequest(Choices& in, const Handles& handles) {
  wire::Request r;
  wire::Memory* inputs = r.add_pools()->mutable_memory();
  if (in.below(2) == 0) {
    inputs->mutable_inline_data()->set_size(2 * kBigBytes);
  } else {
    inputs->set_bulk_transfer_id(Handles::pick(in, handles.uploads));
  }
  r.add_pools()->mutable_memory()->mutable_inline_data()->set_size(kBigBytes);
  for (uint32_t i = 0; i < 3; ++i) {
    wire::DataLocation* location = i < 2 ? r.add_inputs()->mutable_location() : r.add_outputs()->mutable_location();
    location->set_pool_index(i < 2 ? 0 : 1);
    location->set_offset(i < 2 ? i * kBigBytes : 0);
    location->set_length(kBigBytes);
  }
  return r;
}

// A request for the ADD models: usually right (two inputs and an output of 8 bytes in one inline
// pool of 24), sometimes a location, dimension, argument count or pool off; now and then a
// device buffer, registered memory or upload as another pool, or the large ADD's request.
wire::Request request(Choices& in, const Handles& handles) {
  if (in.below(16) == 0) return bigRequest(in, handles);
  wire::Request r;
  const uint32_t inputs = in.below(8) == 0 ? in.below(4) : 2, outputs = in.below(8) == 0 ? in.below(3) : 1;
  for (uint32_t i = 0; i < inputs + outputs; ++i) {
    wire::RequestArgument* argument = i < inputs ? r.add_inputs() : r.add_outputs();
    if (in.below(16) == 0) argument->set_lifetime(static_cast<wire::RequestArgument::LifeTime>(in.below(4)));
    locate(in, argument->mutable_location(), i);
    if (in.below(4) == 0) argument->add_dimensions(in.below(4) == 0 ? in.word() : 2);
  }
  auto* inline_data = r.add_pools()->mutable_memory()->mutable_inline_data();
  inline_data->set_size(in.below(8) == 0 ? in.below(64) : 24);
  if (in.below(2) == 0) inline_data->set_data(std::string(inline_data->size() <= 64 ? inline_data->size() : 0, '\1'));
  if (in.below(4) == 0) r.add_pools()->set_memory_domain_token(Handles::pick(in, handles.buffers));
  if (in.below(4) == 0) r.add_pools()->mutable_memory()->set_registered_memory_id(Handles::pick(in, handles.memories));
  if (in.below(8) == 0) r.add_pools()->mutable_memory()->set_bulk_transfer_id(Handles::pick(in, handles.uploads));
  if (in.below(8) == 0) r.mutable_pools()->SwapElements(0, r.pools_size() - 1);
  return r;
}

void openSession(uint32_t version, Handles& h) {
  wire::OpenSessionRequest request;
  request.set_client_version(version);
  wire::OpenSessionResponse response;
  if (server().stub->OpenSession(context().get(), request, &response).ok()) h.sessions.push_back(response.session_id());
}

// Outputs an execution left waiting for DownloadBulk.
void keepDownloads(const wire::ExecutionOutcome& outcome, Handles& h) {
  for (const auto& [output, id] : outcome.output_bulk_transfer_ids()) h.downloads.push_back(id);
}

void addCacheFile(Choices& in, wire::CacheFile* file) {
  file->set_fd_count(in.below(8) == 0 ? in.below(3) : 1);
  file->set_access(in.below(8) == 0 ? static_cast<wire::CacheFileAccess>(in.below(4)) : wire::CACHE_FILE_READ_WRITE);
}

// PrepareModelFromCache with what a preparation saved, whole or changed (a byte flipped, cut
// short, a body withheld, another token), or with made-up contents.
void prepareFromCache(Choices& in, uint64_t session, Handles& h) {
  Server& s = server();
  wire::PrepareModelFromCacheRequest request;
  request.set_session_id(session);
  request.set_device_name(s.device);
  SavedCache cache;
  if (!h.caches.empty() && in.below(8) != 0) cache = h.caches[in.below(h.caches.size())];
  if (cache.model.empty()) cache = {std::string(32, '\7'), {std::string(in.below(96), '\5')}, {std::string()}};
  auto fill = [&](const std::vector<std::string>& contents,
                  google::protobuf::RepeatedPtrField<wire::CacheFile>* files) {
    for (const std::string& content : contents) {
      wire::CacheFile* file = files->Add();
      addCacheFile(in, file);
      std::string bytes = content;
      switch (in.below(8)) {
        case 0:
          if (!bytes.empty()) bytes[in.below(bytes.size())] ^= static_cast<char>(1 + in.below(255));
          break;
        case 1:
          bytes.resize(in.below(bytes.size() + 1));
          break;
        case 2:
          file->set_withheld_size(bytes.size() + (in.below(2) == 0 ? 0 : in.word()));
          bytes.resize(std::min<size_t>(bytes.size(), in.below(64)));
          break;
        default:
          break;
      }
      file->set_contents(bytes);
    }
  };
  fill(cache.model, request.mutable_model_cache());
  fill(cache.data, request.mutable_data_cache());
  request.set_cache_token(in.below(8) == 0 ? std::string(32, static_cast<char>(in.byte())) : cache.token);
  wire::PrepareModelResponse response;
  if (s.stub->PrepareModelFromCache(context().get(), request, &response).ok()) {
    h.prepared.push_back(response.prepared_model_id());
  }
}

// UploadBulk: a size (small, large enough for the large ADD's inputs, or any), then chunks that
// continue where the last ended, or start elsewhere, or run past the end; finished, cut short
// or cancelled.
void uploadBulk(Choices& in, uint64_t session, Handles& h) {
  const uint32_t kind = in.below(8);
  const uint64_t total = kind == 0 ? in.word() : kind == 1 ? 2 * kBigBytes : 8 * (1 + in.below(8));
  auto c = context();
  wire::BulkTransferHandle handle;
  auto writer = server().stub->UploadBulk(c.get(), &handle);
  uint64_t offset = 0;
  const std::string block(1 << 20, '\4');  // the proxy's chunk size
  for (uint32_t chunks = 0; chunks < 16 && (offset < total || in.below(4) == 0); ++chunks) {
    wire::BulkChunk chunk;
    if (chunks == 0) {
      chunk.set_session_id(session);
      chunk.set_total_size(total);
    }
    const uint64_t size = in.below(8) == 0 ? in.below(80) : std::min<uint64_t>(total - offset, block.size());
    chunk.set_offset(in.below(16) == 0 ? in.word() : offset);
    chunk.set_data(block.data(), std::min<uint64_t>(size, block.size()));
    offset += chunk.data().size();
    if (!writer->Write(chunk) || in.below(32) == 0) break;
  }
  if (in.below(8) == 0) c->TryCancel();
  writer->WritesDone();
  if (writer->Finish().ok()) h.uploads.push_back(handle.bulk_transfer_id());
}

// DownloadBulk of an output (or an upload's id, or a made-up one), read whole, in part, or again.
void downloadBulk(Choices& in, uint64_t session, Handles& h) {
  wire::BulkTransferHandle request;
  request.set_session_id(session);
  request.set_bulk_transfer_id(in.below(8) == 0 ? Handles::pick(in, h.uploads) : Handles::pick(in, h.downloads));
  auto c = context();
  auto reader = server().stub->DownloadBulk(c.get(), request);
  wire::BulkChunk chunk;
  for (uint32_t chunks = in.below(4) == 0 ? in.below(3) : 16; chunks > 0 && reader->Read(&chunk); --chunks) {
  }
  c->TryCancel();
  (void)reader->Finish();
}

// The input's WatchSessions stream: opened, told to watch or stop watching sessions (its own,
// released, made up), or cancelled, which ends every session it watched.
void watchSessions(Choices& in, Handles& h) {
  if (h.watch == nullptr) {
    h.watchContext = std::make_unique<grpc::ClientContext>();
    h.watchContext->set_deadline(std::chrono::system_clock::now() + kCallTimeout * kMostCalls);
    h.watch = server().watch->WatchSessions(h.watchContext.get());
  }
  if (in.below(4) == 0) {
    h.watchContext->TryCancel();
    (void)h.watch->Finish();
    h.watch.reset();
    h.watchContext.reset();
    return;
  }
  wire::WatchSessionsRequest request;
  for (uint32_t i = in.below(3); i > 0; --i) request.add_add(Handles::pick(in, h.sessions));
  for (uint32_t i = in.below(2); i > 0; --i) request.add_remove(Handles::pick(in, h.sessions));
  (void)h.watch->Write(request);
}

void step(Choices& in, Handles& h) {
  Server& s = server();
  const uint64_t session = Handles::pick(in, h.sessions);
  switch (in.below(25)) {
    case 0:
      openSession(in.below(16) == 0 ? in.word() : wire::kWireVersion, h);
      break;
    case 1: {
      wire::CloseSessionRequest request;
      request.set_session_id(session);
      wire::Empty response;
      (void)s.stub->CloseSession(context().get(), request, &response);
      break;
    }
    case 2:
    case 3: {
      wire::PrepareModelRequest request;
      request.set_session_id(session);
      request.set_device_name(in.below(16) == 0 ? "no such device" : s.device);
      *request.mutable_model() = model(in);
      // Now and then with a compilation cache: one model and one data file as the device asks,
      // or a count, descriptor count or access off; a 32-byte token, or one of another length.
      const bool caching = in.below(4) == 0;
      if (caching) {
        for (uint32_t i = in.below(8) == 0 ? in.below(3) : 1; i > 0; --i) addCacheFile(in, request.add_model_cache());
        for (uint32_t i = in.below(8) == 0 ? in.below(3) : 1; i > 0; --i) addCacheFile(in, request.add_data_cache());
        request.set_cache_token(std::string(in.below(8) == 0 ? in.below(40) : 32, static_cast<char>(in.byte())));
      }
      wire::PrepareModelResponse response;
      if (s.stub->PrepareModel(context().get(), request, &response).ok()) {
        h.prepared.push_back(response.prepared_model_id());
        if (response.cache_written()) {
          h.caches.push_back({request.cache_token(),
                              {response.model_cache_contents().begin(), response.model_cache_contents().end()},
                              {response.data_cache_contents().begin(), response.data_cache_contents().end()}});
        }
      }
      break;
    }
    case 21:
      prepareFromCache(in, session, h);
      break;
    case 22:
      uploadBulk(in, session, h);
      break;
    case 23:
      downloadBulk(in, session, h);
      break;
    case 24:
      watchSessions(in, h);
      break;
    case 4: {
      wire::ReleasePreparedModelRequest request;
      request.set_session_id(session);
      request.set_prepared_model_id(Handles::pick(in, h.prepared));
      wire::Empty response;
      (void)s.stub->ReleasePreparedModel(context().get(), request, &response);
      break;
    }
    case 5:
    case 6: {
      wire::ExecuteRequest request;
      request.set_session_id(session);
      request.set_prepared_model_id(Handles::pick(in, h.prepared));
      *request.mutable_request() = ::request(in, h);
      request.set_measure(static_cast<wire::MeasureTiming>(in.below(2)));
      if (in.below(4) == 0) request.mutable_deadline()->set_nanoseconds_from_now(in.below(3) * 1'000'000ull);
      if (in.below(2) == 0) {
        wire::ExecuteResponse response;
        if (s.stub->Execute(context().get(), request, &response).ok()) keepDownloads(response.outcome(), h);
      } else {
        wire::StartExecutionResponse response;
        if (s.stub->StartExecution(context().get(), request, &response).ok()) {
          h.executions.push_back(response.execution_id());
        }
      }
      break;
    }
    case 7: {
      wire::AwaitExecutionRequest request;
      request.set_session_id(session);
      request.set_execution_id(Handles::pick(in, h.executions));
      wire::ExecuteResponse response;
      if (s.waits->AwaitExecution(context().get(), request, &response).ok()) keepDownloads(response.outcome(), h);
      break;
    }
    case 8: {
      wire::ExecuteFencedRequest request;
      request.set_session_id(session);
      request.set_prepared_model_id(Handles::pick(in, h.prepared));
      *request.mutable_request() = ::request(in, h);
      for (uint32_t i = in.below(3); i > 0; --i) request.add_wait_for_fence_ids(Handles::pick(in, h.fences));
      if (in.below(2) == 0) request.mutable_timeout_duration_after_fence()->set_nanoseconds(in.below(4) * 1'000'000ull);
      if (in.below(4) == 0) request.add_release_fence_ids(Handles::pick(in, h.fences));
      wire::ExecuteFencedResponse response;
      if (s.stub->ExecuteFenced(context().get(), request, &response).ok()) {
        h.fenced.push_back(response.execution_id());
        h.fences.push_back(response.sync_fence_id());
      }
      break;
    }
    case 9: {
      wire::GetExecuteFencedInfoRequest request;
      request.set_session_id(session);
      request.set_execution_id(Handles::pick(in, h.fenced));
      wire::GetExecuteFencedInfoResponse response;
      (void)s.waits->GetExecuteFencedInfo(context().get(), request, &response);
      break;
    }
    case 10: {
      wire::CreateReusableExecutionRequest request;
      request.set_session_id(session);
      request.set_prepared_model_id(Handles::pick(in, h.prepared));
      *request.mutable_request() = ::request(in, h);
      wire::CreateReusableExecutionResponse response;
      if (s.stub->CreateReusableExecution(context().get(), request, &response).ok()) {
        h.reusable.push_back(response.reusable_execution_id());
      }
      break;
    }
    case 11: {
      wire::ComputeReusableExecutionRequest request;
      request.set_session_id(session);
      request.set_reusable_execution_id(Handles::pick(in, h.reusable));
      if (in.below(4) == 0) (*request.mutable_updated_pools())[in.below(3)] = std::string(in.below(32), '\2');
      wire::ExecuteResponse response;
      (void)s.stub->ComputeReusableExecution(context().get(), request, &response);
      break;
    }
    case 12: {
      wire::ReleaseReusableExecutionRequest request;
      request.set_session_id(session);
      request.set_reusable_execution_id(Handles::pick(in, h.reusable));
      wire::Empty response;
      (void)s.stub->ReleaseReusableExecution(context().get(), request, &response);
      break;
    }
    case 13: {
      wire::AllocateBufferRequest request;
      request.set_session_id(session);
      request.set_device_name(s.device);
      if (in.below(4) == 0) request.add_dimensions(in.below(4) == 0 ? in.word() : 2);
      for (uint32_t i = 1 + in.below(2); i > 0; --i) {
        wire::BufferRole* role = in.below(2) == 0 ? request.add_input_roles() : request.add_output_roles();
        role->set_prepared_model_id(Handles::pick(in, h.prepared));
        role->set_io_index(in.below(3));
        role->set_probability(in.below(8) == 0 ? in.scale() : 1.0f);
      }
      wire::AllocateBufferResponse response;
      if (s.stub->AllocateBuffer(context().get(), request, &response).ok()) h.buffers.push_back(response.token());
      break;
    }
    case 14: {
      wire::CopyToBufferRequest request;
      request.set_session_id(session);
      request.set_token(Handles::pick(in, h.buffers));
      auto* source = request.mutable_source()->mutable_inline_data();
      source->set_size(in.below(4) == 0 ? in.below(64) : 8);
      source->set_data(std::string(source->size(), '\3'));
      if (in.below(4) == 0) request.add_dimensions(in.below(4));
      wire::Empty response;
      (void)s.stub->CopyToBuffer(context().get(), request, &response);
      break;
    }
    case 15: {
      wire::CopyFromBufferRequest request;
      request.set_session_id(session);
      request.set_token(Handles::pick(in, h.buffers));
      request.mutable_destination()->mutable_inline_data()->set_size(in.below(4) == 0 ? in.below(64) : 8);
      wire::CopyFromBufferResponse response;
      (void)s.stub->CopyFromBuffer(context().get(), request, &response);
      break;
    }
    case 16: {
      wire::ReleaseBufferRequest request;
      request.set_session_id(session);
      request.set_token(Handles::pick(in, h.buffers));
      wire::Empty response;
      (void)s.stub->ReleaseBuffer(context().get(), request, &response);
      break;
    }
    case 17: {
      wire::CreateFenceRequest request;
      request.set_session_id(session);
      wire::CreateFenceResponse response;
      if (s.stub->CreateFence(context().get(), request, &response).ok()) h.fences.push_back(response.fence_id());
      break;
    }
    case 18: {
      const uint64_t fence = Handles::pick(in, h.fences);
      switch (in.below(3)) {
        case 0: {
          wire::SignalFenceRequest request;
          request.set_session_id(session);
          request.set_fence_id(fence);
          request.set_error(in.below(4) == 0);
          request.set_release(in.below(2) == 0);
          wire::Empty response;
          (void)s.stub->SignalFence(context().get(), request, &response);
          break;
        }
        case 1: {
          wire::ReleaseFencesRequest request;
          request.set_session_id(session);
          request.add_fence_ids(fence);
          wire::Empty response;
          (void)s.stub->ReleaseFences(context().get(), request, &response);
          break;
        }
        default: {
          wire::WaitFenceRequest request;
          request.set_session_id(session);
          request.set_fence_id(fence);
          request.mutable_timeout()->set_nanoseconds(in.below(3) * 1'000'000ull);
          wire::WaitFenceResponse response;
          (void)s.waits->WaitFence(context().get(), request, &response);
        }
      }
      break;
    }
    case 19: {
      // The shared pool registered (its size right, short, past its end or 0), or unregistered
      // while requests, reusable executions or bursts may still name it.
      if (in.below(2) == 0) {
        wire::RegisterMemoryRequest request;
        request.set_session_id(session);
        request.set_shm_name(in.below(16) == 0 ? "/nnremote-no-such-pool" : s.shared->sharedName());
        const uint32_t sizes[] = {kSharedBytes, 24, kSharedBytes + 1, 0};
        request.set_size(sizes[in.below(4)]);
        wire::RegisterMemoryResponse response;
        if (s.stub->RegisterMemory(context().get(), request, &response).ok())
          h.memories.push_back(response.memory_id());
      } else {
        wire::UnregisterMemoryRequest request;
        request.set_session_id(session);
        request.set_memory_id(Handles::pick(in, h.memories));
        wire::Empty response;
        (void)s.stub->UnregisterMemory(context().get(), request, &response);
      }
      break;
    }
    case 20: {
      // A burst: opened on a prepared model, a few executions (and a cached memory and its
      // release) on the stream, then closed, or left to the session's close.
      auto c = context();
      auto stream = s.waits->Burst(c.get());
      wire::BurstRequest open;
      open.mutable_open()->set_session_id(session);
      open.mutable_open()->set_prepared_model_id(Handles::pick(in, h.prepared));
      if (!stream->Write(open)) break;
      for (uint32_t i = 1 + in.below(3); i > 0; --i) {
        wire::BurstRequest message;
        switch (in.below(4)) {
          case 0:
            message.mutable_cache_memory()->set_slot(in.below(3));
            switch (in.below(3)) {
              case 0:
                message.mutable_cache_memory()->mutable_memory()->mutable_inline_data()->set_size(24);
                break;
              case 1:
                message.mutable_cache_memory()->mutable_memory()->set_registered_memory_id(
                    Handles::pick(in, h.memories));
                break;
              default:
                message.mutable_cache_memory()->mutable_memory()->set_bulk_transfer_id(Handles::pick(in, h.uploads));
            }
            break;
          case 1:
            message.set_release_memory_slot(in.below(3));
            break;
          default:
            message.mutable_execute()->set_serial(i);
            *message.mutable_execute()->mutable_request() = ::request(in, h);
            if (in.below(4) == 0) (*message.mutable_execute()->mutable_pool_slots())[0] = in.below(3);
        }
        if (!stream->Write(message)) break;
        wire::BurstResponse response;
        if (message.has_execute() && !stream->Read(&response)) break;
      }
      if (in.below(4) != 0) stream->WritesDone();
      c->TryCancel();
      (void)stream->Finish();
    }
  }
}

// A new client's ADD on a new session: the server still serves.
void expectServing() {
  Server& s = server();
  wire::OpenSessionRequest open;
  open.set_client_version(wire::kWireVersion);
  wire::OpenSessionResponse session;
  grpc::ClientContext openContext;
  openContext.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  const grpc::Status status = s.stub->OpenSession(&openContext, open, &session);
  if (!status.ok()) {
    std::fprintf(stderr, "session_fuzzer: the server no longer serves: %s\n", status.error_message().c_str());
    std::abort();
  }
  wire::CloseSessionRequest close;
  close.set_session_id(session.session_id());
  wire::Empty done;
  grpc::ClientContext closeContext;
  (void)s.stub->CloseSession(&closeContext, close, &done);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Choices in(data, size);
  Handles handles;
  openSession(wire::kWireVersion, handles);
  for (int i = 0; i < kMostCalls && !in.exhausted(); ++i) step(in, handles);
  if (handles.watch != nullptr) {
    handles.watchContext->TryCancel();
    (void)handles.watch->Finish();
  }
  for (uint64_t session : handles.sessions) {
    wire::CloseSessionRequest request;
    request.set_session_id(session);
    wire::Empty response;
    (void)server().stub->CloseSession(context().get(), request, &response);
  }
  expectServing();
  return 0;
}
