#include "emulator/session_registry.h"

#include <random>

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;

uint64_t newUnguessableId() {
  static std::mutex mutex;
  static std::random_device device;
  std::lock_guard<std::mutex> lock(mutex);
  uint64_t id = 0;
  while (id == 0) id = (uint64_t{device()} << 32) | device();
  return id;
}

std::shared_ptr<Session> SessionRegistry::open(const std::string& identity, const std::string& clientName) {
  auto session = std::make_shared<Session>(newUnguessableId(), identity, clientName, limits_);
  std::lock_guard<std::mutex> lock(mutex_);
  sessions_.emplace(session->id(), session);
  return session;
}

hal::Result<std::shared_ptr<Session>> SessionRegistry::find(uint64_t id, const std::string& identity) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second->identity() != identity) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "session_id " << id << " is not an open session of yours (call OpenSession first)";
  }
  return it->second;
}

hal::Status SessionRegistry::close(uint64_t id, const std::string& identity) {
  NN_RETURN_IF_ERROR(find(id, identity).status());
  drop(id);
  return {};
}

void SessionRegistry::drop(uint64_t id) {
  std::shared_ptr<Session> session;  // released outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  session = std::move(it->second);
  sessions_.erase(it);
}

size_t SessionRegistry::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sessions_.size();
}

}  // namespace nnremote::emulator
