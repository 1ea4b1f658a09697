// Who may use the server: TLS and mutual TLS on TCP, bearer tokens on every RPC and stream,
// unix sockets by mode and uid, and isolation between identities (docs/security.md).
#include <fcntl.h>
#include <gmock/gmock.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "drivers/proxy/proxy_device.h"
#include "drivers/sim/extensions/fibonacci.h"
#include "drivers/sim/sim_device.h"
#include "emulator/accelerator_service.h"
#include "emulator/emulator_server.h"
#include "emulator/server_config.h"
#include "hal/compilation_cache.h"
#include "hal/model_builder.h"
#include "testing/add_model.h"
#include "testing/unique_names.h"
#include "tests/common/test_pki.h"
#include "wire/conversions.h"
#include "wire/grpc_status.h"
#include "wire/wire_constants.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

constexpr const char* kAliceToken = "alice-0123456789abcdef";
constexpr const char* kBobToken = "bob-fedcba9876543210";

std::string testDirectory() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

const testing::TestPki& pki() {
  static const testing::TestPki* made = [] {
    auto result = testing::makeTestPki(testDirectory() + "/pki");
    if (!result.ok()) {
      std::fprintf(stderr, "cannot make test certificates (is openssl installed?): %s\n",
                   result.error().message.c_str());
      std::abort();
    }
    return new testing::TestPki(std::move(result).value());
  }();
  return *made;
}

std::vector<hal::SharedDevice> twoDevices() {
  return {sim::SimDevice::create(sim::edgeNpuConfig()), sim::SimDevice::create(sim::largeNpuConfig())};
}

// In /tmp: bazel's TEST_TMPDIR can be longer than a socket path may be.
std::string uniqueSocket(const std::string& name) {
  return "unix:/tmp/nnremote-" + name + "-" + nnremote::testing::uniqueToken() + ".sock";
}

ServerOptions withTokens() {
  ServerOptions options;
  options.security.tokens.identityOf = {{kAliceToken, "alice"}, {kBobToken, "bob"}};
  return options;
}

proxy::ConnectionOptions quickConnect() {
  proxy::ConnectionOptions options;
  options.connectTimeout = std::chrono::milliseconds(1500);
  return options;
}

// A raw client of the wire protocol that presents `token` (none if empty) on every call.
class RawClient {
 public:
  RawClient(const std::string& address, std::string token)
      : stub_(wire::Accelerator::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))),
        watch_(wire::SessionWatch::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))),
        waits_(wire::AcceleratorWaits::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))),
        token_(std::move(token)) {}

  std::unique_ptr<grpc::ClientContext> context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (!token_.empty()) context->AddMetadata("authorization", "Bearer " + token_);
    return context;
  }
  wire::Accelerator::Stub& stub() { return *stub_; }
  wire::SessionWatch::Stub& watch() { return *watch_; }
  wire::AcceleratorWaits::Stub& waitsStub() { return *waits_; }

  grpc::Status openSession(wire::OpenSessionResponse* response) {
    wire::OpenSessionRequest request;
    request.set_client_version(wire::kWireVersion);
    return stub_->OpenSession(context().get(), request, response);
  }
  grpc::Status prepare(uint64_t session, const std::string& device, uint64_t* id) {
    wire::PrepareModelRequest request;
    request.set_session_id(session);
    request.set_device_name(device);
    *request.mutable_model() = *wire::toWire(testing::twoInputAddModel());
    wire::PrepareModelResponse response;
    grpc::Status status = stub_->PrepareModel(context().get(), request, &response);
    *id = response.prepared_model_id();
    return status;
  }
  grpc::Status execute(uint64_t session, uint64_t preparedModel, std::vector<float>* sum = nullptr) {
    auto io = hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
    wire::ExecuteRequest request;
    request.set_session_id(session);
    request.set_prepared_model_id(preparedModel);
    *request.mutable_request() = *wire::toWire(io->request);
    wire::ExecuteResponse response;
    grpc::Status status = stub_->Execute(context().get(), request, &response);
    if (status.ok() && sum != nullptr) {
      const std::string& bytes = response.outcome().output_data(0);
      sum->assign(reinterpret_cast<const float*>(bytes.data()),
                  reinterpret_cast<const float*>(bytes.data() + bytes.size()));
    }
    return status;
  }
  std::vector<std::string> deviceNames() {
    wire::ListDevicesResponse response;
    EXPECT_TRUE(stub_->ListDevices(context().get(), wire::ListDevicesRequest(), &response).ok());
    std::vector<std::string> names;
    for (const auto& device : response.devices()) names.push_back(device.name());
    return names;
  }

 private:
  std::unique_ptr<wire::Accelerator::Stub> stub_;
  std::unique_ptr<wire::SessionWatch::Stub> watch_;
  std::unique_ptr<wire::AcceleratorWaits::Stub> waits_;
  std::string token_;
};

void expectUnauthenticated(const grpc::Status& status, const std::string& what) {
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << what << ": " << status.error_message();
}

// Someone else's object is refused exactly as one that does not exist: INVALID_ARGUMENT, and for
// a session NOT_FOUND on the wire (what a session unknown to a restarted server gets too).
void expectNotYours(const grpc::Status& status, const std::string& what) {
  EXPECT_TRUE(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT ||
              status.error_code() == grpc::StatusCode::NOT_FOUND)
      << what << ": " << status.error_message();
  EXPECT_EQ(wire::fromGrpcStatus(status).code, hal::ErrorStatus::INVALID_ARGUMENT) << what;
}

TEST(TransportSecurityTest, PlainTcpNeedsInsecureAndTlsNeedsBothHalves) {
  auto refused = EmulatorServer::start(twoDevices(), "127.0.0.1:0");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("--insecure"));

  ServerOptions certOnly;
  certOnly.security.tlsCertPem = pki().server.certPem;
  auto halfTls = EmulatorServer::start(twoDevices(), "127.0.0.1:0", certOnly);
  ASSERT_FALSE(halfTls.ok());
  EXPECT_THAT(halfTls.error().message, HasSubstr("certificate and its key"));

  ServerOptions tlsOnUnix;
  tlsOnUnix.security.tlsCertPem = pki().server.certPem;
  tlsOnUnix.security.tlsKeyPem = pki().server.keyPem;
  auto unixTls = EmulatorServer::start(twoDevices(), uniqueSocket("tls"), tlsOnUnix);
  ASSERT_FALSE(unixTls.ok());
  EXPECT_THAT(unixTls.error().message, HasSubstr("TLS is for TCP listeners"));
}

TEST(TransportSecurityTest, TlsServesClientsThatVerifyTheServerAndNoOthers) {
  ServerOptions options;
  options.security.tlsCertPem = pki().server.certPem;
  options.security.tlsKeyPem = pki().server.keyPem;
  auto server = EmulatorServer::start(twoDevices(), "127.0.0.1:0", options);
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string address = (*server)->address();

  proxy::ConnectionOptions tls = quickConnect();
  tls.security.tlsCaPem = pki().caPem;
  auto connection = proxy::Connection::connect(address, tls);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  EXPECT_EQ((*connection)->identity(), kAnonymousIdentity);  // no client certificate asked for
  auto devices = proxy::ProxyDevice::discover(*connection);
  ASSERT_TRUE(devices.ok());
  EXPECT_EQ(devices->size(), 2u);

  // Each refused client is told what to fix, not only that it could not connect.
  auto plaintext = proxy::Connection::connect(address, quickConnect());
  ASSERT_FALSE(plaintext.ok()) << "a plaintext client got in";
  EXPECT_THAT(plaintext.error().message, HasSubstr("it does not speak gRPC without TLS: if it is an npu_emulator "
                                                   "with --tls-cert, connect with --tls-ca=PEM"));
  proxy::ConnectionOptions wrongCa = quickConnect();
  wrongCa.security.tlsCaPem = pki().stranger.certPem;  // not the CA that signed the server
  auto unverified = proxy::Connection::connect(address, wrongCa);
  ASSERT_FALSE(unverified.ok()) << "an unverified server was trusted";
  EXPECT_THAT(unverified.error().message,
              HasSubstr("the TLS handshake failed: is --tls-ca the CA that signed the server's certificate"));
  EXPECT_EQ((*server)->service().sessions().size(), 1u);
}

TEST(TransportSecurityTest, ATlsClientOfAPlaintextServerIsToldItSpeaksWithoutTls) {
  ServerOptions plaintext;
  plaintext.security.insecureTcp = true;
  auto server = EmulatorServer::start(twoDevices(), "127.0.0.1:0", plaintext);
  ASSERT_TRUE(server.ok()) << server.error().message;
  proxy::ConnectionOptions tls = quickConnect();
  tls.security.tlsCaPem = pki().caPem;
  auto connection = proxy::Connection::connect((*server)->address(), tls);
  ASSERT_FALSE(connection.ok());
  EXPECT_EQ(connection.error().code, hal::ErrorStatus::DEAD_OBJECT);
  EXPECT_THAT(connection.error().message,
              HasSubstr("(it speaks gRPC without TLS, as npu_emulator --insecure does: connect without --tls-ca"));

  // And a port nothing listens on is not taken for either.
  const std::string address = (*server)->address();
  server->reset();
  auto refused = proxy::Connection::connect(address, quickConnect());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("(connection refused: nothing listens on port "));
}

TEST(TransportSecurityTest, MutualTlsNeedsAClientCertificateFromTheClientCaAndNamesItsSubject) {
  ServerOptions options;
  options.security.tlsCertPem = pki().server.certPem;
  options.security.tlsKeyPem = pki().server.keyPem;
  options.security.clientCaPem = pki().caPem;
  auto server = EmulatorServer::start(twoDevices(), "127.0.0.1:0", options);
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string address = (*server)->address();

  proxy::ConnectionOptions alice = quickConnect();
  alice.security.tlsCaPem = pki().caPem;
  alice.security.tlsCertPem = pki().alice.certPem;
  alice.security.tlsKeyPem = pki().alice.keyPem;
  alice.security.tlsServerName = "localhost";
  auto connection = proxy::Connection::connect(address, alice);
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  EXPECT_EQ((*connection)->identity(), "CN=alice");

  proxy::ConnectionOptions noCertificate = quickConnect();
  noCertificate.security.tlsCaPem = pki().caPem;
  EXPECT_FALSE(proxy::Connection::connect(address, noCertificate).ok()) << "a client without a certificate got in";

  proxy::ConnectionOptions stranger = noCertificate;
  stranger.security.tlsCertPem = pki().stranger.certPem;
  stranger.security.tlsKeyPem = pki().stranger.keyPem;
  EXPECT_FALSE(proxy::Connection::connect(address, stranger).ok()) << "a certificate from another CA got in";
  EXPECT_EQ((*server)->service().sessions().size(), 1u);
}

TEST(TokenTest, EveryRpcAndStreamWithoutAValidTokenIsUnauthenticatedBeforeAnyWork) {
  auto server = EmulatorServer::start(twoDevices(), uniqueSocket("tokens"), withTokens());
  ASSERT_TRUE(server.ok()) << server.error().message;
  for (const std::string token : {"", "alice-0123456789abcdeX", "not a token"}) {
    SCOPED_TRACE("token '" + token + "'");
    RawClient client((*server)->address(), token);
    wire::OpenSessionResponse opened;
    expectUnauthenticated(client.openSession(&opened), "OpenSession");
    wire::ListDevicesResponse devices;
    expectUnauthenticated(client.stub().ListDevices(client.context().get(), {}, &devices), "ListDevices");
    wire::GetDeviceInfoRequest info;
    info.set_device_name("nnremote-edge16");
    wire::DeviceInfo deviceInfo;
    expectUnauthenticated(client.stub().GetDeviceInfo(client.context().get(), info, &deviceInfo), "GetDeviceInfo");
    uint64_t id = 0;
    expectUnauthenticated(client.prepare(1, "nnremote-edge16", &id), "PrepareModel");
    expectUnauthenticated(client.execute(1, 1), "Execute");
    wire::CreateFenceRequest fence;
    wire::CreateFenceResponse fenceResponse;
    expectUnauthenticated(client.stub().CreateFence(client.context().get(), fence, &fenceResponse), "CreateFence");
    // The callback service's calls too.
    wire::WaitFenceRequest waitFence;
    waitFence.set_session_id(1);
    wire::WaitFenceResponse waitFenceResponse;
    expectUnauthenticated(client.waitsStub().WaitFence(client.context().get(), waitFence, &waitFenceResponse),
                          "WaitFence");
    wire::AwaitExecutionRequest await;
    await.set_session_id(1);
    wire::ExecuteResponse awaited;
    expectUnauthenticated(client.waitsStub().AwaitExecution(client.context().get(), await, &awaited), "AwaitExecution");
    wire::GetExecuteFencedInfoRequest fencedInfo;
    fencedInfo.set_session_id(1);
    wire::GetExecuteFencedInfoResponse fencedInfoResponse;
    expectUnauthenticated(
        client.waitsStub().GetExecuteFencedInfo(client.context().get(), fencedInfo, &fencedInfoResponse),
        "GetExecuteFencedInfo");

    // Streams: a burst, a bulk upload, a bulk download and a session watch.
    auto burstContext = client.context();
    auto burst = client.waitsStub().Burst(burstContext.get());
    wire::BurstRequest open;
    open.mutable_open()->set_session_id(1);
    burst->Write(open);
    burst->WritesDone();
    expectUnauthenticated(burst->Finish(), "Burst");
    auto uploadContext = client.context();
    wire::BulkTransferHandle handle;
    auto upload = client.stub().UploadBulk(uploadContext.get(), &handle);
    wire::BulkChunk chunk;
    chunk.set_session_id(1);
    chunk.set_total_size(4);
    chunk.set_data("abcd");
    upload->Write(chunk);
    upload->WritesDone();
    expectUnauthenticated(upload->Finish(), "UploadBulk");
    auto downloadContext = client.context();
    auto download = client.stub().DownloadBulk(downloadContext.get(), handle);
    wire::BulkChunk received;
    EXPECT_FALSE(download->Read(&received));
    expectUnauthenticated(download->Finish(), "DownloadBulk");
    auto watchContext = client.context();
    auto watch = client.watch().WatchSessions(watchContext.get());
    wire::WatchSessionsRequest watched;
    watched.add_add(1);
    (void)watch->Write(watched);  // the stream may be refused before it is read
    wire::SessionEvent event;
    EXPECT_FALSE(watch->Read(&event));
    expectUnauthenticated(watch->Finish(), "WatchSessions");
  }
  EXPECT_EQ((*server)->service().sessions().size(), 0u) << "a session was made without a valid token";

  // Through the proxy driver the refusal is a clear error, and the right token gets in.
  auto refused = proxy::Connection::connect((*server)->address(), quickConnect());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("bearer token"));
  proxy::ConnectionOptions withToken = quickConnect();
  withToken.security.token = kBobToken;
  auto bob = proxy::Connection::connect((*server)->address(), withToken);
  ASSERT_TRUE(bob.ok()) << bob.error().message;
  EXPECT_EQ((*bob)->identity(), "bob");
}

TEST(IsolationTest, AnotherIdentityCannotUseStolenOrGuessedSessionsAndHandles) {
  auto server = EmulatorServer::start(twoDevices(), uniqueSocket("isolation"), withTokens());
  ASSERT_TRUE(server.ok()) << server.error().message;
  RawClient alice((*server)->address(), kAliceToken);
  RawClient bob((*server)->address(), kBobToken);
  wire::OpenSessionResponse aliceSession, bobSession;
  ASSERT_TRUE(alice.openSession(&aliceSession).ok());
  ASSERT_TRUE(bob.openSession(&bobSession).ok());
  EXPECT_EQ(aliceSession.identity(), "alice");
  const uint64_t aliceId = aliceSession.session_id();
  uint64_t alicesModel = 0;
  ASSERT_TRUE(alice.prepare(aliceId, "nnremote-edge16", &alicesModel).ok());
  wire::CreateFenceRequest fenceRequest;
  fenceRequest.set_session_id(aliceId);
  wire::CreateFenceResponse alicesFence;
  ASSERT_TRUE(alice.stub().CreateFence(alice.context().get(), fenceRequest, &alicesFence).ok());

  // Bob with Alice's (stolen) session id: every call is refused as if the session did not exist.
  uint64_t ignored = 0;
  expectNotYours(bob.prepare(aliceId, "nnremote-edge16", &ignored), "PrepareModel in a stolen session");
  expectNotYours(bob.execute(aliceId, alicesModel), "Execute in a stolen session");
  wire::SignalFenceRequest signal;
  signal.set_session_id(aliceId);
  signal.set_fence_id(alicesFence.fence_id());
  wire::Empty empty;
  expectNotYours(bob.stub().SignalFence(bob.context().get(), signal, &empty), "SignalFence in a stolen session");
  wire::ReleasePreparedModelRequest release;
  release.set_session_id(aliceId);
  release.set_prepared_model_id(alicesModel);
  expectNotYours(bob.stub().ReleasePreparedModel(bob.context().get(), release, &empty), "ReleasePreparedModel");
  wire::CloseSessionRequest close;
  close.set_session_id(aliceId);
  expectNotYours(bob.stub().CloseSession(bob.context().get(), close, &empty), "CloseSession of a stolen session");
  // A watch that breaks ends its sessions, so watching another's session is refused too: Bob is
  // told at once that it is not watched, as for a session that does not exist, and ending his
  // stream leaves it be (Alice's session is still there below).
  {
    auto watchContext = bob.context();  // with a deadline: an accepted watch would send nothing
    auto watch = bob.watch().WatchSessions(watchContext.get());
    wire::WatchSessionsRequest add;
    add.add_add(aliceId);
    ASSERT_TRUE(watch->Write(add));
    wire::SessionEvent event;
    ASSERT_TRUE(watch->Read(&event)) << "WatchSessions of a stolen session was not refused";
    EXPECT_EQ(event.session_id(), aliceId);
    watchContext->TryCancel();
    (void)watch->Finish();
  }
  auto burstContext = bob.context();
  auto burst = bob.waitsStub().Burst(burstContext.get());
  wire::BurstRequest open;
  open.mutable_open()->set_session_id(aliceId);
  open.mutable_open()->set_prepared_model_id(alicesModel);
  burst->Write(open);
  burst->WritesDone();
  expectNotYours(burst->Finish(), "Burst in a stolen session");

  // Bob in his own session naming Alice's handles, or guessing.
  const uint64_t bobId = bobSession.session_id();
  expectNotYours(bob.execute(bobId, alicesModel), "Execute of Alice's prepared model");
  expectNotYours(bob.execute(bobId, alicesModel + 1), "Execute of a guessed prepared model");
  signal.set_session_id(bobId);
  expectNotYours(bob.stub().SignalFence(bob.context().get(), signal, &empty), "SignalFence of Alice's fence");
  release.set_session_id(bobId);
  expectNotYours(bob.stub().ReleasePreparedModel(bob.context().get(), release, &empty), "Release of Alice's model");

  // Alice lost nothing.
  std::vector<float> sum;
  ASSERT_TRUE(alice.execute(aliceId, alicesModel, &sum).ok());
  EXPECT_EQ(sum, (std::vector<float>{11, 22}));
  EXPECT_EQ((*server)->service().sessions().size(), 2u);
}

TEST(IsolationTest, AnIdentityLimitedToSomeDevicesCannotSeeOrUseTheOthers) {
  ServerOptions options = withTokens();
  options.clientAccess.devicesOf["bob"] = {"nnremote-edge16"};
  auto server = EmulatorServer::start(twoDevices(), uniqueSocket("devices"), options);
  ASSERT_TRUE(server.ok()) << server.error().message;
  RawClient alice((*server)->address(), kAliceToken);
  RawClient bob((*server)->address(), kBobToken);
  EXPECT_EQ(alice.deviceNames(), (std::vector<std::string>{"nnremote-edge16", "nnremote-large128"}));
  EXPECT_EQ(bob.deviceNames(), (std::vector<std::string>{"nnremote-edge16"}));

  wire::GetDeviceInfoRequest info;
  info.set_device_name("nnremote-large128");
  wire::DeviceInfo deviceInfo;
  const grpc::Status hidden = bob.stub().GetDeviceInfo(bob.context().get(), info, &deviceInfo);
  expectNotYours(hidden, "GetDeviceInfo of a hidden device");
  EXPECT_THAT(hidden.error_message(), HasSubstr("is not served here (devices: nnremote-edge16)"));
  wire::OpenSessionResponse session;
  ASSERT_TRUE(bob.openSession(&session).ok());
  uint64_t id = 0;
  expectNotYours(bob.prepare(session.session_id(), "nnremote-large128", &id), "PrepareModel on a hidden device");
  EXPECT_TRUE(bob.prepare(session.session_id(), "nnremote-edge16", &id).ok());

  // A device the server does not serve cannot be given to anyone.
  ServerOptions typo = withTokens();
  typo.clientAccess.devicesOf["bob"] = {"nnremote-edge61"};
  auto refused = EmulatorServer::start(twoDevices(), uniqueSocket("typo"), typo);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("'nnremote-edge61', which this server does not serve"));
}

// n (EXAMPLE_INT64) -> the Fibonacci numbers as TENSOR_FLOAT32 [n], under prefix 5.
hal::Model fibonacciModel(uint32_t n) {
  constexpr uint32_t kPrefix = 5;
  hal::ModelBuilder b;
  const uint32_t input = b.addInput(static_cast<hal::OperandType>((kPrefix << 16) | sim::fibonacci::EXAMPLE_INT64), {});
  const uint32_t output = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {n});
  b.addOperation(static_cast<hal::OperationType>((kPrefix << 16) | sim::fibonacci::EXAMPLE_FIBONACCI), {input},
                 {output});
  hal::Model model = b.build();
  model.extensionNameToPrefix = {{sim::fibonacci::kExtensionName, kPrefix}};
  return model;
}

std::vector<std::string> extensionNames(const hal::IDevice& device) {
  std::vector<std::string> names;
  for (const auto& extension : device.getSupportedExtensions()) names.push_back(extension.name);
  return names;
}

TEST(ExtensionAllowlistTest, AnExtensionAClientMayNotUseIsInvisibleAndItsModelsAreRefused) {
  ServerOptions options = withTokens();
  auto& allowlist = options.clientAccess.extensions.emplace();
  allowlist.everyone = {"com.nnremote.transformer"};
  allowlist.extensionsOf["alice"] = {"com.example.fibonacci"};
  auto server = EmulatorServer::start(twoDevices(), uniqueSocket("extensions"), options);
  ASSERT_TRUE(server.ok()) << server.error().message;
  auto edge16As = [&](const char* token) -> hal::SharedDevice {
    proxy::ConnectionOptions client;
    client.security.token = token;
    auto connection = proxy::Connection::connect((*server)->address(), client);
    if (!connection.ok()) return nullptr;
    auto devices = proxy::ProxyDevice::discover(*connection);
    return devices.ok() ? hal::SharedDevice(devices->front()) : nullptr;
  };
  const hal::SharedDevice alice = edge16As(kAliceToken), bob = edge16As(kBobToken);
  ASSERT_NE(alice, nullptr);
  ASSERT_NE(bob, nullptr);
  EXPECT_EQ(extensionNames(*alice), (std::vector<std::string>{"com.example.fibonacci", "com.nnremote.transformer"}));
  EXPECT_EQ(extensionNames(*bob), (std::vector<std::string>{"com.nnremote.transformer"}));

  const hal::Model model = fibonacciModel(6);
  auto prepare = [&](const hal::IDevice& device, const std::vector<hal::CacheFile>& modelCache = {},
                     const std::vector<hal::CacheFile>& dataCache = {}) {
    hal::CacheToken token{};
    return device.prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM, std::nullopt,
                               modelCache, dataCache, token);
  };
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string directory = std::string(tmp != nullptr ? tmp : "/tmp");
  auto handle = [&](const char* name) {
    return std::vector<hal::CacheFile>{*hal::openCacheFile(directory + "/allowlist-" + name, O_RDWR | O_CREAT)};
  };
  auto prepared = prepare(*alice, handle("model"), handle("data"));
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<int64_t>({6})}, {6 * 4});
  ASSERT_TRUE((*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 6), (std::vector<float>{1, 1, 2, 3, 5, 8}));

  const std::string refusal = "names extension 'com.example.fibonacci', which 'bob' may not use";
  auto supported = bob->getSupportedOperations(model);
  ASSERT_FALSE(supported.ok());
  EXPECT_EQ(supported.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(supported.error().message, HasSubstr(refusal));
  auto refused = prepare(*bob);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error().message, HasSubstr(refusal));
  // Nor through Alice's cache.
  auto fromCache = bob->prepareModelFromCache(std::nullopt, handle("model"), handle("data"), hal::CacheToken{});
  ASSERT_FALSE(fromCache.ok());
  EXPECT_THAT(fromCache.error().message, HasSubstr(refusal));
  EXPECT_TRUE(alice->prepareModelFromCache(std::nullopt, handle("model"), handle("data"), hal::CacheToken{}).ok());

  // A name no served device offers is refused at startup rather than granting nothing.
  ServerOptions typo = withTokens();
  typo.clientAccess.extensions.emplace().everyone = {"com.example.fibonaci"};
  auto notStarted = EmulatorServer::start(twoDevices(), uniqueSocket("typo-extension"), typo);
  ASSERT_FALSE(notStarted.ok());
  EXPECT_THAT(notStarted.error().message, HasSubstr("'com.example.fibonaci' is not offered by any served device"));
}

TEST(ExtensionAllowlistTest, TheServerConfigSpellsItOut) {
  auto limits = parseServerConfig(R"(
      extension_allowlist {
        everyone: "com.nnremote.transformer"
        identities { identity: "uid:1000" extensions: "com.example.fibonacci" }
      })",
                                  "test");
  ASSERT_TRUE(limits.ok()) << limits.error().message;
  EXPECT_TRUE(limits->clientAccess.allowsExtension("uid:1000", "com.example.fibonacci"));
  EXPECT_TRUE(limits->clientAccess.allowsExtension("uid:1001", "com.nnremote.transformer"));
  EXPECT_FALSE(limits->clientAccess.allowsExtension("uid:1001", "com.example.fibonacci"));
  EXPECT_TRUE(ClientAccess{}.allowsExtension("anyone", "com.example.fibonacci")) << "no allowlist: all allowed";
  auto twice = parseServerConfig(R"(
      extension_allowlist { identities { identity: "a" } identities { identity: "a" } })",
                                 "test");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.error().message, HasSubstr("extension_allowlist.identities[1].identity 'a' is listed twice"));
}

TEST(UnixSocketTest, TheSocketIsPrivateOrGroupSharedAndClientsAreTheirUid) {
  const std::string address = uniqueSocket("mode");
  const std::string path = address.substr(5);
  {
    auto server = EmulatorServer::start(twoDevices(), address);
    ASSERT_TRUE(server.ok()) << server.error().message;
    struct stat status {};
    ASSERT_EQ(::stat(path.c_str(), &status), 0);
    EXPECT_TRUE(S_ISSOCK(status.st_mode));
    EXPECT_EQ(status.st_mode & 0777, 0600u);
    auto connection = proxy::Connection::connect(address, quickConnect());
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    EXPECT_EQ((*connection)->identity(), "uid:" + std::to_string(::getuid()));
  }
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "the socket file outlived its server";

  ServerOptions shared;
  shared.security.socketGroup = ::getgid();
  auto server = EmulatorServer::start(twoDevices(), address, shared);
  ASSERT_TRUE(server.ok()) << server.error().message;
  struct stat status {};
  ASSERT_EQ(::stat(path.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0660u);
  EXPECT_EQ(status.st_gid, ::getgid());
  EXPECT_TRUE(proxy::Connection::connect(address, quickConnect()).ok());
}

// An address in use is an error, as for any server: taking it over would leave the server on it
// running but unreachable to new clients (a unix path), or share its clients with it (a port).
TEST(ListenAddressTest, AUnixPathAServerListensOnIsInUseAndItsServerKeepsServing) {
  const std::string address = uniqueSocket("in-use");
  auto first = EmulatorServer::start(twoDevices(), address);
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto second = EmulatorServer::start(twoDevices(), address);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.error().message, HasSubstr("address in use (a server listens on " + address.substr(5)));
  EXPECT_TRUE(proxy::Connection::connect(address, quickConnect()).ok());
}

// A socket bound at `path` and never listened on: one a server still starting holds, or, once
// closed without unlinking, what a killed server leaves. -1 if it could not be bound.
int boundSocket(const std::string& path) {
  sockaddr_un name{};
  name.sun_family = AF_UNIX;
  std::strncpy(name.sun_path, path.c_str(), sizeof(name.sun_path) - 1);
  const int bound = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (::bind(bound, reinterpret_cast<const sockaddr*>(&name), sizeof(name)) == 0) return bound;
  ::close(bound);
  return -1;
}

TEST(ListenAddressTest, ASocketFileLeftByAKilledServerIsReplaced) {
  const std::string address = uniqueSocket("stale");
  const std::string path = address.substr(5);
  const int left = boundSocket(path);
  ASSERT_GE(left, 0);
  ::close(left);
  ASSERT_EQ(::access(path.c_str(), F_OK), 0);
  auto server = EmulatorServer::start(twoDevices(), address);
  ASSERT_TRUE(server.ok()) << server.error().message;
  EXPECT_TRUE(proxy::Connection::connect(address, quickConnect()).ok());
}

// What a server starting on a path looks like to another: its socket bound, not yet listened
// on (so a probe finds no one), and the path's lock held.
TEST(ListenAddressTest, ASocketFileOfAServerStillStartingIsNotTakenForStale) {
  const std::string address = uniqueSocket("starting");
  const std::string path = address.substr(5);
  const int starting = boundSocket(path);
  ASSERT_GE(starting, 0);
  const int lock = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX | LOCK_NB), 0);
  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);

  auto second = EmulatorServer::start(twoDevices(), address);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.error().message, HasSubstr("address in use (a server listens on " + path +
                                                ", or is starting to: it holds " + path + ".lock)"));
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0) << "the starting server's socket file was removed";
  EXPECT_EQ(after.st_ino, before.st_ino);

  // Once that server is gone (killed: its files stay, unlocked), the path is free again, and a
  // server that stops cleanly takes both files away.
  ::close(starting);
  ::close(lock);
  {
    auto server = EmulatorServer::start(twoDevices(), address);
    ASSERT_TRUE(server.ok()) << server.error().message;
    EXPECT_TRUE(proxy::Connection::connect(address, quickConnect()).ok());
  }
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
  EXPECT_NE(::access((path + ".lock").c_str(), F_OK), 0);
}

TEST(ListenAddressTest, AFileThatIsNotASocketIsLeftAlone) {
  const std::string address = uniqueSocket("not-a-socket");
  const std::string path = address.substr(5);
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("a user's file", file);
  std::fclose(file);
  auto server = EmulatorServer::start(twoDevices(), address);
  ASSERT_FALSE(server.ok());
  EXPECT_THAT(server.error().message, HasSubstr(path + " exists and is not a socket"));
  struct stat status {};
  ASSERT_EQ(::stat(path.c_str(), &status), 0) << "the file was removed";
  EXPECT_EQ(status.st_size, 13);
  ::unlink(path.c_str());
}

TEST(ListenAddressTest, ATcpPortAServerListensOnIsInUse) {
  ServerOptions plain;
  plain.security.insecureTcp = true;
  auto first = EmulatorServer::start(twoDevices(), "127.0.0.1:0", plain);
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto second = EmulatorServer::start(twoDevices(), (*first)->address(), plain);
  ASSERT_FALSE(second.ok()) << "a second server took " << (*first)->address() << " too (SO_REUSEPORT)";
  EXPECT_THAT(second.error().message, HasSubstr("cannot listen on " + (*first)->address() + ": port "));
  EXPECT_THAT(second.error().message, HasSubstr(" is in use"));
}

TEST(ListenAddressTest, AMalformedAddressIsRefusedNamingWhatIsWrong) {
  // gRPC itself would listen on port 99999 as 34463, and take "unixbox:50051" for a unix socket
  // if the prefix alone decided.
  ServerOptions plain;
  plain.security.insecureTcp = true;
  auto wrapped = EmulatorServer::start(twoDevices(), "127.0.0.1:99999", plain);
  ASSERT_FALSE(wrapped.ok()) << "listening on " << (*wrapped)->address();
  EXPECT_EQ(wrapped.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_EQ(wrapped.error().message, "'127.0.0.1:99999' has no usable port: '99999' is not a number from 0 to 65535");
  auto noPort = EmulatorServer::start(twoDevices(), "localhost", plain);
  ASSERT_FALSE(noPort.ok());
  EXPECT_THAT(noPort.error().message, HasSubstr("'localhost' has no port"));
  auto hostLikeUnix = EmulatorServer::start(twoDevices(), "unixbox:0", plain);
  if (!hostLikeUnix.ok()) {  // as a TCP host it may not resolve here; it is never a unix path
    EXPECT_THAT(hostLikeUnix.error().message, HasSubstr("cannot listen on unixbox:0"));
  }
}

TEST(UnixSocketTest, TokensFileIsValidated) {
  const std::string path = testDirectory() + "/tokens";
  auto write = [&](const std::string& text) {
    FILE* file = std::fopen(path.c_str(), "w");
    std::fputs(text.c_str(), file);
    std::fclose(file);
  };
  write("# farm tokens\nalice 0123456789abcdef0123\n\nbob fedcba9876543210fedc\n");
  auto tokens = loadTokenFile(path);
  ASSERT_TRUE(tokens.ok()) << tokens.error().message;
  EXPECT_EQ(tokens->identityOf.at("fedcba9876543210fedc"), "bob");
  write("alice short\n");
  EXPECT_THAT(loadTokenFile(path).error().message, HasSubstr(":1: the token of 'alice' is shorter than 16"));
  write("alice 0123456789abcdef0123\nbob 0123456789abcdef0123\n");
  EXPECT_THAT(loadTokenFile(path).error().message, HasSubstr(":2: this token is already given to 'alice'"));
  write("alice 0123456789abcdef0123 extra\n");
  EXPECT_THAT(loadTokenFile(path).error().message, HasSubstr(":1: expected 'IDENTITY TOKEN'"));
  EXPECT_EQ(loadTokenFile(path + ".missing").error().message,
            "cannot read " + path + ".missing: No such file or directory");
}

}  // namespace
}  // namespace nnremote::emulator
