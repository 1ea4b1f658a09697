// Client sessions and what they own. A session ends when its client closes it or when the
// client's WatchSession stream breaks; everything it owned is released with it.
#ifndef NNREMOTE_EMULATOR_SESSION_REGISTRY_H_
#define NNREMOTE_EMULATOR_SESSION_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "hal/i_device.h"

namespace nnremote::emulator {

// A prepared model as the server keeps it: the device's object plus the model it was prepared
// from, which the server needs to validate requests itself before any device sees them.
struct PreparedModelEntry {
  hal::SharedPreparedModel preparedModel;
  std::shared_ptr<const hal::Model> model;
  std::string deviceName;
};

class Session {
 public:
  Session(uint64_t id, std::string clientName) : id_(id), clientName_(std::move(clientName)) {}

  uint64_t id() const { return id_; }
  const std::string& clientName() const { return clientName_; }

  uint64_t addPreparedModel(PreparedModelEntry entry);
  hal::Result<PreparedModelEntry> preparedModel(uint64_t id) const;
  hal::Status releasePreparedModel(uint64_t id);
  size_t preparedModelCount() const;

 private:
  const uint64_t id_;
  const std::string clientName_;
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, PreparedModelEntry> preparedModels_;
};

class SessionRegistry {
 public:
  std::shared_ptr<Session> open(const std::string& clientName);
  hal::Result<std::shared_ptr<Session>> find(uint64_t id) const;
  // Ends the session; a later find() fails. Closing an unknown session is an error.
  hal::Status close(uint64_t id);
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, std::shared_ptr<Session>> sessions_;
};

// A random non-zero 64-bit id from the OS's entropy source: ids are capabilities, so they must
// not be guessable by other clients.
uint64_t newUnguessableId();

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SESSION_REGISTRY_H_
