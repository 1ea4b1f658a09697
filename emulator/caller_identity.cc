#include "emulator/caller_identity.h"

#include <grpcpp/grpcpp.h>

#include <sstream>

#include "hal/file_contents.h"

namespace nnremote::emulator {
namespace {

constexpr size_t kShortestToken = 16;
constexpr const char* kBearerPrefix = "Bearer ";

// Compares without stopping at the first difference, so the time taken does not tell a
// guesser how much of a token was right.
bool sameSecret(const std::string& a, grpc::string_ref b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned char>(a[i] ^ b.data()[i]);
  return difference == 0;
}

grpc::Status unauthenticated(const std::string& why) {
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, why);
}

}  // namespace

hal::Result<TokenTable> loadTokenFile(const std::string& path) {
  NN_ASSIGN_OR_RETURN(const std::string contents, hal::readFileContents(path));
  std::istringstream file(contents);
  TokenTable table;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    std::istringstream words(line);
    std::string identity, token, extra;
    if (!(words >> identity) || identity[0] == '#') continue;
    if (!(words >> token) || (words >> extra)) {
      return hal::invalidArgument() << path << ":" << number << ": expected 'IDENTITY TOKEN'";
    }
    if (token.size() < kShortestToken) {
      return hal::invalidArgument() << path << ":" << number << ": the token of '" << identity
                                    << "' is shorter than " << kShortestToken << " characters";
    }
    if (!table.identityOf.emplace(token, identity).second) {
      return hal::invalidArgument() << path << ":" << number << ": this token is already given to '"
                                    << table.identityOf[token] << "'";
    }
  }
  if (table.empty()) return hal::invalidArgument() << "tokens file " << path << " lists no tokens";
  return table;
}

void UnixPeers::connected(const std::string& peer, uid_t uid) {
  std::lock_guard<std::mutex> lock(mutex_);
  uids_[peer] = uid;  // a reused descriptor number belongs to the newest connection
}

bool UnixPeers::uidOf(const std::string& peer, uid_t* uid) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = uids_.find(peer);
  if (it == uids_.end()) return false;
  *uid = it->second;
  return true;
}

bool Authenticator::isUnixPeer(const grpc::ServerContextBase& context) const {
  uid_t uid = 0;
  return unixPeers_ != nullptr && unixPeers_->uidOf(context.peer(), &uid);
}

grpc::Status Authenticator::identify(const grpc::ServerContextBase& context, std::string* identity) const {
  if (!tokens_.empty()) {
    const auto& metadata = context.client_metadata();
    const auto header = metadata.find("authorization");
    if (header == metadata.end()) {
      return unauthenticated("this server requires a bearer token (authorization metadata); none was sent");
    }
    const grpc::string_ref value = header->second;
    const size_t prefix = std::char_traits<char>::length(kBearerPrefix);
    if (value.size() <= prefix || std::string(value.data(), prefix) != kBearerPrefix) {
      return unauthenticated("the authorization metadata is not 'Bearer TOKEN'");
    }
    const grpc::string_ref presented = value.substr(prefix);
    const std::string* match = nullptr;
    for (const auto& [token, owner] : tokens_.identityOf) {
      if (sameSecret(token, presented)) match = &owner;  // no early exit: see sameSecret
    }
    if (match == nullptr) return unauthenticated("the bearer token is not one this server accepts");
    *identity = *match;
    return grpc::Status::OK;
  }
  const auto auth = context.auth_context();
  if (auth != nullptr && auth->IsPeerAuthenticated()) {
    const auto subject = auth->FindPropertyValues(GRPC_X509_SUBJECT_PROPERTY_NAME);
    if (!subject.empty()) {
      *identity = std::string(subject.front().data(), subject.front().size());
      return grpc::Status::OK;
    }
    const auto peer = auth->GetPeerIdentity();
    if (!peer.empty()) {
      *identity = std::string(peer.front().data(), peer.front().size());
      return grpc::Status::OK;
    }
  }
  uid_t uid = 0;
  if (unixPeers_ != nullptr && unixPeers_->uidOf(context.peer(), &uid)) {
    *identity = "uid:" + std::to_string(uid);
    return grpc::Status::OK;
  }
  *identity = kAnonymousIdentity;
  return grpc::Status::OK;
}

}  // namespace nnremote::emulator
