#include "proxy_driver/connection.h"

#include "proto/grpc_status.h"

namespace nnremote::proxy {

// Must match the server's emulator::kWireVersion.
constexpr uint32_t kClientWireVersion = 1;

hal::Result<std::shared_ptr<Connection>> Connection::connect(const std::string& address,
                                                             const ConnectionOptions& options) {
  std::shared_ptr<Connection> connection(new Connection());
  connection->address_ = address;
  connection->options_ = options;
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, static_cast<int>(options.keepaliveTime.count()));
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, static_cast<int>(options.keepaliveTimeout.count()));
  arguments.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  NN_ASSIGN_OR_RETURN(connection->channel_, createSecureChannel(address, options.security, arguments));
  if (!connection->channel_->WaitForConnected(std::chrono::system_clock::now() +
                                              options.connectTimeout)) {
    return hal::makeError(hal::ErrorStatus::DEAD_OBJECT)
           << "cannot reach an npu_emulator at " << address << " within "
           << options.connectTimeout.count() << " ms";
  }
  connection->stub_ = wire::Accelerator::NewStub(connection->channel_);
  connection->watchStub_ = wire::SessionWatch::NewStub(connection->channel_);

  wire::OpenSessionRequest request;
  request.set_client_version(kClientWireVersion);
  request.set_client_name(options.clientName);
  wire::OpenSessionResponse response;
  auto context = connection->controlContext();
  const grpc::Status status = connection->stub_->OpenSession(context.get(), request, &response);
  if (!status.ok()) {
    return hal::withContext(wire_conv::fromGrpcStatus(status), "OpenSession at " + address);
  }
  connection->sessionId_ = response.session_id();
  connection->identity_ = response.identity();
  connection->pools_ = std::make_unique<PoolTransport>(*connection, options.useSharedMemory,
                                                       options.bulkThresholdBytes);
  connection->watchThread_ = std::thread([raw = connection.get()] { raw->watchSession(); });
  return connection;
}

void Connection::watchSession() {
  wire::CloseSessionRequest request;
  request.set_session_id(sessionId_);
  auto reader = watchStub_->WatchSession(&watchContext_, request);
  wire::SessionEvent event;
  while (reader->Read(&event)) {
  }
  (void)reader->Finish();
}

Connection::~Connection() {
  if (sessionId_ != 0) {
    wire::CloseSessionRequest request;
    request.set_session_id(sessionId_);
    wire::Empty empty;
    auto context = controlContext();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    (void)stub_->CloseSession(context.get(), request, &empty);
  }
  watchContext_.TryCancel();
  if (watchThread_.joinable()) watchThread_.join();
}

bool Connection::reachable() const {
  // Streams and sessions live on the connection that is up now; once it drops, they are gone
  // even if the channel later reconnects.
  return channel_->GetState(/*try_to_connect=*/false) == GRPC_CHANNEL_READY;
}

std::unique_ptr<grpc::ClientContext> Connection::controlContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + options_.controlCallTimeout);
  return context;
}

// A server answers a missed deadline itself; this grace lets its answer arrive first.
constexpr std::chrono::seconds kDeadlineGrace{1};

std::optional<std::chrono::system_clock::time_point> Connection::executionCallLimit(
    const hal::OptionalTimePoint& deadline) const {
  if (deadline.has_value()) {
    return std::chrono::system_clock::now() +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(*deadline - hal::Clock::now()) +
           kDeadlineGrace;
  }
  if (options_.executionTimeout.count() > 0) return std::chrono::system_clock::now() + options_.executionTimeout;
  return std::nullopt;
}

hal::Error Connection::executionCutOff(const hal::OptionalTimePoint& deadline) const {
  if (deadline.has_value()) {
    return hal::makeError(hal::ErrorStatus::MISSED_DEADLINE_TRANSIENT)
           << "the server did not answer by the execution's deadline (plus " << kDeadlineGrace.count() << " s)";
  }
  return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
         << "the server did not answer within ConnectionOptions.executionTimeout ("
         << options_.executionTimeout.count() << " ms)";
}

hal::Error Connection::executionCallError(const grpc::Status& status, const hal::OptionalTimePoint& deadline) const {
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED && status.error_details().empty() &&
      (deadline.has_value() || options_.executionTimeout.count() > 0)) {
    return executionCutOff(deadline);
  }
  return wire_conv::fromGrpcStatus(status);
}

}  // namespace nnremote::proxy
