#include "drivers/proxy/channel_security.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/client_interceptor.h>

#include "hal/file_contents.h"
#include "wire/address.h"

#include <cctype>
#include <tuple>

namespace nnremote::proxy {
namespace {

// Adds the bearer token to every call's metadata. Call credentials would do this only on TLS
// channels, and a unix socket with tokens is a setup we support.
class BearerTokenInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit BearerTokenInterceptor(const std::string* header) : header_(header) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace("authorization", *header_);
    }
    methods->Proceed();
  }

 private:
  const std::string* header_;
};

class BearerTokenInterceptorFactory final : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit BearerTokenInterceptorFactory(const std::string& token) : header_("Bearer " + token) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(grpc::experimental::ClientRpcInfo*) override {
    return new BearerTokenInterceptor(&header_);
  }

 private:
  const std::string header_;  // lives as long as the channel, which owns the factory
};

}  // namespace

hal::Result<std::string> readSecret(const std::string& path, const std::string& flag) {
  auto contents = hal::readFileContents(path);
  if (!contents.ok()) return hal::withContext(contents.error(), flag);
  return contents;
}

hal::Result<ChannelSecurity> readChannelSecurity(const ChannelSecurityFiles& files, const std::string& prefix,
                                                 OptionNames names) {
  // `option` in the flags' spelling, e.g. "tls-ca".
  auto nameOf = [&](std::string option) {
    if (names == OptionNames::kEnvironment) {
      for (char& c : option) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return prefix + option;
  };
  ChannelSecurity security;
  const std::tuple<const char*, const std::string*, std::string*> pems[] = {
      {"tls-ca", &files.tlsCa, &security.tlsCaPem},
      {"tls-cert", &files.tlsCert, &security.tlsCertPem},
      {"tls-key", &files.tlsKey, &security.tlsKeyPem}};
  for (const auto& [flag, path, into] : pems) {
    if (path->empty()) continue;
    NN_ASSIGN_OR_RETURN(*into, readSecret(*path, nameOf(flag)));
  }
  security.tlsServerName = files.tlsServerName;
  if (!files.tokenFile.empty()) {
    NN_ASSIGN_OR_RETURN(std::string token, readSecret(files.tokenFile, nameOf("token-file")));
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
    if (token.empty()) return hal::invalidArgument() << nameOf("token-file") << ": " << files.tokenFile << " is empty";
    security.token = std::move(token);
  }
  return security;
}

hal::Result<std::shared_ptr<grpc::Channel>> createSecureChannel(const std::string& address,
                                                               const ChannelSecurity& security,
                                                               grpc::ChannelArguments arguments) {
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  const bool unix = wire::isUnixAddress(address);
  if (security.tlsCertPem.empty() != security.tlsKeyPem.empty()) {
    return hal::invalidArgument() << "a client certificate needs its key, and a key its certificate";
  }
  if (!security.tlsCaPem.empty()) {
    if (unix) return hal::invalidArgument() << "TLS is for TCP addresses, not " << address;
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = security.tlsCaPem;
    tls.pem_cert_chain = security.tlsCertPem;
    tls.pem_private_key = security.tlsKeyPem;
    credentials = grpc::SslCredentials(tls);
    if (!security.tlsServerName.empty()) arguments.SetSslTargetNameOverride(security.tlsServerName);
  } else if (!security.tlsCertPem.empty()) {
    return hal::invalidArgument() << "a client certificate needs TLS: give the server's CA too";
  }
  if (security.token.empty()) return grpc::CreateCustomChannel(address, credentials, arguments);
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<BearerTokenInterceptorFactory>(security.token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(address, credentials, arguments,
                                                                 std::move(interceptors));
}

}  // namespace nnremote::proxy
