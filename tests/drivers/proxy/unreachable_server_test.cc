// A client that reaches no npu_emulator at a unix socket address is told what is at the path:
// nothing, a file that is not a socket, a stale socket nothing listens on, or something that
// listens but does not answer as an npu_emulator; at a TCP port where nothing listens, so; and at
// a gRPC server of another kind, that it is not an npu_emulator. Where nothing can answer, it is
// told at once, not after the connection timeout. An address that is no address is refused
// before anything is tried.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include "drivers/proxy/connection.h"
#include "testing/unique_names.h"

namespace nnremote::proxy {
namespace {

using ::testing::HasSubstr;

std::string uniquePath(const std::string& name) {
  return "/tmp/nnremote-" + name + "-" + testing::uniqueToken() + ".sock";
}

// The message of connecting to ADDRESS, which must fail as DEAD_OBJECT. Where nothing can answer
// (`settled`), at once, though the connection timeout is long; else after its 200 ms.
std::string failureAt(const std::string& address, bool settled) {
  ConnectionOptions options;
  options.connectTimeout = settled ? std::chrono::milliseconds(30000) : std::chrono::milliseconds(200);
  options.reconnect = false;
  const auto started = std::chrono::steady_clock::now();
  auto connection = Connection::connect(address, options);
  EXPECT_FALSE(connection.ok());
  if (connection.ok()) return "";
  EXPECT_EQ(connection.error().code, hal::ErrorStatus::DEAD_OBJECT);
  if (settled) {
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10)) << address << " was waited for";
  } else {
    EXPECT_THAT(connection.error().message, HasSubstr("within 200 ms"));
  }
  return connection.error().message;
}

// A unix socket at `path`, bound and, if `listening`, listening (never accepting).
int boundSocket(const std::string& path, bool listening) {
  sockaddr_un name{};
  name.sun_family = AF_UNIX;
  std::strncpy(name.sun_path, path.c_str(), sizeof(name.sun_path) - 1);
  const int socket = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_EQ(::bind(socket, reinterpret_cast<const sockaddr*>(&name), sizeof(name)), 0) << path;
  if (listening) {
    EXPECT_EQ(::listen(socket, 4), 0);
  }
  return socket;
}

TEST(UnreachableServerTest, APathThatDoesNotExistIsNamed) {
  const std::string path = uniquePath("missing");
  EXPECT_THAT(failureAt("unix:" + path, true), HasSubstr(path + " does not exist: is npu_emulator running?"));
}

TEST(UnreachableServerTest, AFileThatIsNotASocketIsNamed) {
  const std::string path = uniquePath("file");
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fclose(file);
  EXPECT_THAT(failureAt("unix:" + path, true), HasSubstr(path + " is not a socket"));
  ::unlink(path.c_str());
}

TEST(UnreachableServerTest, AStaleSocketIsNamed) {
  const std::string path = uniquePath("stale");
  ::close(boundSocket(path, /*listening=*/false));
  EXPECT_THAT(failureAt("unix:" + path, true), HasSubstr("nothing listens on " + path + ": a stale socket"));
  ::unlink(path.c_str());
}

TEST(UnreachableServerTest, AListenerThatIsNotAnEmulatorIsNamed) {
  const std::string path = uniquePath("mute");
  const int listener = boundSocket(path, /*listening=*/true);
  EXPECT_THAT(failureAt("unix:" + path, false),
              HasSubstr("something listens on " + path + " but did not answer as an npu_emulator"));
  ::close(listener);
  ::unlink(path.c_str());
}

TEST(UnreachableServerTest, ARefusedPortIsNamedAtOnce) {
  // Bound, not listening: a connection to it is refused, and the port stays ours meanwhile.
  const int socket = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in name{};
  name.sin_family = AF_INET;
  name.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(socket, reinterpret_cast<const sockaddr*>(&name), sizeof name), 0);
  socklen_t length = sizeof name;
  ASSERT_EQ(::getsockname(socket, reinterpret_cast<sockaddr*>(&name), &length), 0);
  const std::string port = std::to_string(ntohs(name.sin_port));
  EXPECT_THAT(failureAt("127.0.0.1:" + port, true),
              HasSubstr("connection refused: nothing listens on port " + port + "; is npu_emulator running there?"));
  ::close(socket);
}

TEST(UnreachableServerTest, AGrpcServerThatIsNotAnEmulatorIsNamed) {
  // A gRPC server with none of our services, as etcd's client port given as --target is.
  const std::string path = uniquePath("other-grpc");
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + path, grpc::InsecureServerCredentials());
  grpc::CallbackGenericService generic;  // answers every call UNIMPLEMENTED
  builder.RegisterCallbackGenericService(&generic);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ConnectionOptions options;
  options.reconnect = false;
  auto connection = Connection::connect("unix:" + path, options);
  ASSERT_FALSE(connection.ok());
  EXPECT_THAT(connection.error().message, HasSubstr("unix:" + path +
                                                    " is not an npu_emulator: it answers HTTP/2 but has no "
                                                    "nnremote.wire.Accelerator service"));
  server->Shutdown(std::chrono::system_clock::now());
}

TEST(UnreachableServerTest, AMalformedAddressIsRefusedAtOnceNamingWhatIsWrong) {
  // gRPC would connect to "localhost" on 443 and to port 70000 as 4464, and time out or worse.
  const std::pair<std::string, std::string> cases[] = {
      {"localhost", "'localhost' has no port (HOST:PORT)"},
      {"localhost:70000", "'localhost:70000' has no usable port: '70000' is not a number from 1 to 65535"},
      {"127.0.0.1:0", "'0' is not a number from 1 to 65535"},
      {"unix:", "'unix:' names no socket"},
  };
  for (const auto& [address, expected] : cases) {
    ConnectionOptions options;
    options.connectTimeout = std::chrono::seconds(30);  // a refusal must not wait for it
    options.reconnect = false;
    const auto started = std::chrono::steady_clock::now();
    auto connection = Connection::connect(address, options);
    ASSERT_FALSE(connection.ok()) << address;
    EXPECT_EQ(connection.error().code, hal::ErrorStatus::INVALID_ARGUMENT) << connection.error().message;
    EXPECT_THAT(connection.error().message, HasSubstr(expected));
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10)) << address << " was tried";
  }
}

}  // namespace
}  // namespace nnremote::proxy
