// Sessions and their id tables on their own, without a server: ids are capabilities, so a table answers only for
// its own entries and a session only to the identity that opened it, with the same answer as for one that does not
// exist. Quotas are per session, and a session that ends lets go of everything it held.
#include "emulator/session_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "emulator/session_quotas.h"
#include "hal/memory.h"

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

TEST(IdTableTest, EachEntryIsFoundUnderItsOwnId) {
  IdTable<std::string> table("fence_id", "fences");
  const uint64_t first = table.add("first");
  const uint64_t second = table.add("second");
  EXPECT_NE(first, 0u);  // never 0, which is what an unset proto3 id field reads as
  EXPECT_NE(first, second);
  EXPECT_EQ(table.size(), 2u);
  auto found = table.find(second);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(*found, "second");
  found = table.find(first);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(*found, "first");
}

TEST(IdTableTest, AnUnknownIdIsRefusedNamingTheFieldAndTheId) {
  IdTable<std::string> table("fence_id", "fences");
  const uint64_t id = table.add("fence");
  const uint64_t unknown = id + 1;
  auto found = table.find(unknown);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(found.error().message,
              HasSubstr("fence_id " + std::to_string(unknown) + " does not name one of this session's fences"));
  // take and erase refuse it the same way, and leave the table as it was.
  auto taken = table.take(unknown);
  ASSERT_FALSE(taken.ok());
  EXPECT_THAT(taken.error().message, HasSubstr("fence_id " + std::to_string(unknown)));
  const hal::Status erased = table.erase(unknown);
  ASSERT_FALSE(erased.ok());
  EXPECT_EQ(erased.code(), hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_EQ(table.size(), 1u);
}

TEST(IdTableTest, TakingAnEntryRemovesIt) {
  IdTable<std::string> table("bulk_transfer_id", "uploads");
  const uint64_t id = table.add("bytes");
  auto taken = table.take(id);
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  EXPECT_EQ(*taken, "bytes");
  EXPECT_EQ(table.size(), 0u);
  // An upload is used by the one request that names it: a second use must fail.
  EXPECT_FALSE(table.take(id).ok());
  EXPECT_FALSE(table.find(id).ok());
  EXPECT_FALSE(table.erase(id).ok());
}

TEST(IdTableTest, DeviceBuffersAreNamedByTheir32BitMemoryDomainToken) {
  // Requests name device buffers by a 32-bit token, so the table's keys are 32-bit too.
  IdTable<int, uint32_t> table("memory_domain_token", "device buffers");
  const uint32_t token = table.add(7);
  EXPECT_NE(token, 0u);
  auto found = table.find(token);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(*found, 7);
  const uint32_t unknown = token + 1;
  auto missing = table.find(unknown);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr("memory_domain_token " + std::to_string(unknown) +
                                                 " does not name one of this session's device buffers"));
}

TEST(SessionRegistryTest, AnOpenedSessionIsFoundByTheIdentityThatOpenedIt) {
  SessionRegistry registry;
  const std::shared_ptr<Session> session = *registry.open("uid:1000", "benchmark");
  EXPECT_EQ(session->identity(), "uid:1000");
  EXPECT_EQ(session->clientName(), "benchmark");
  EXPECT_EQ(registry.size(), 1u);
  auto found = registry.find(session->id(), "uid:1000");
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->get(), session.get());
}

TEST(SessionRegistryTest, AnotherIdentityCannotFindTheSession) {
  SessionRegistry registry;
  const uint64_t id = registry.open("uid:1000", "app").value()->id();
  auto foreign = registry.find(id, "uid:1001");
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().code, hal::ErrorStatus::INVALID_ARGUMENT);
  EXPECT_THAT(foreign.error().message,
              HasSubstr("session_id " + std::to_string(id) + " is not an open session of yours"));
  // Once the session is gone, the same question gets the very same answer: a prober learns nothing from it.
  registry.drop(id);
  auto gone = registry.find(id, "uid:1001");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, foreign.error().code);
  EXPECT_EQ(gone.error().message, foreign.error().message);
}

TEST(SessionRegistryTest, OnlyTheOwnerCanCloseASession) {
  SessionRegistry registry;
  const uint64_t id = registry.open("uid:1000", "app").value()->id();
  const uint64_t other = registry.open("uid:1000", "app").value()->id();
  const hal::Status foreign = registry.close(id, "uid:1001");
  ASSERT_FALSE(foreign.ok());
  EXPECT_THAT(foreign.error().message, HasSubstr("session_id " + std::to_string(id)));
  EXPECT_TRUE(registry.find(id, "uid:1000").ok());

  EXPECT_TRUE(registry.close(id, "uid:1000").ok());
  EXPECT_FALSE(registry.find(id, "uid:1000").ok());
  EXPECT_FALSE(registry.close(id, "uid:1000").ok());  // closing twice is an error
  // The identity's other session is a separate one and stays open.
  EXPECT_TRUE(registry.find(other, "uid:1000").ok());
  EXPECT_EQ(registry.size(), 1u);
}

TEST(SessionRegistryTest, AnIdFromAnotherSessionNamesNothingInThisOne) {
  SessionRegistry registry;
  const std::shared_ptr<Session> mine = *registry.open("uid:1000", "app");
  const std::shared_ptr<Session> theirs = *registry.open("uid:1000", "app");
  const uint64_t fence = theirs->fences.add({hal::SyncFence::create(), true});
  auto found = mine->fences.find(fence);
  ASSERT_FALSE(found.ok());
  EXPECT_THAT(found.error().message, HasSubstr("fence_id " + std::to_string(fence)));
  EXPECT_FALSE(mine->fences.take(fence).ok());
  EXPECT_TRUE(theirs->fences.find(fence).ok());  // and the refused take did not take it from its owner
}

TEST(SessionRegistryTest, EverySessionHasTheRegistryLimitsAndItsOwnCounts) {
  SessionLimits limits;
  limits.fences = 2;
  limits.preparedModels = 3;
  limits.registeredMemoryBytes = 1 << 20;
  SessionRegistry registry(limits);
  const std::shared_ptr<Session> first = *registry.open("uid:1000", "app");
  const std::shared_ptr<Session> second = *registry.open("uid:1000", "app");
  EXPECT_EQ(first->limits().fences, 2u);
  EXPECT_EQ(first->limits().preparedModels, 3u);
  EXPECT_EQ(first->limits().registeredMemoryBytes, uint64_t{1} << 20);
  EXPECT_EQ(second->limits().fences, 2u);

  // The fence RPCs check the session's own table against its limit (fence_rpcs.cc): two fences fill the first
  // session, and not the second.
  first->fences.add({hal::SyncFence::create(), true});
  first->fences.add({hal::SyncFence::create(), true});
  const hal::Status full =
      checkHolding(first->fences.size(), first->limits().fences, "fences", "session_quotas.fences");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.code(), hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT);
  EXPECT_THAT(full.error().message, HasSubstr("session_quotas.fences = 2"));
  EXPECT_TRUE(checkHolding(second->fences.size(), second->limits().fences, "fences", "session_quotas.fences").ok());
}

TEST(SessionRegistryTest, AnIdentityMayHaveOnlySoManySessionsOpen) {
  SessionLimits limits;
  limits.sessionsPerIdentity = 2;
  SessionRegistry registry(limits);
  const uint64_t first = registry.open("uid:1000", "app").value()->id();
  ASSERT_TRUE(registry.open("uid:1000", "app").ok());
  auto third = registry.open("uid:1000", "app");
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error().code, hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT);
  EXPECT_THAT(third.error().message, HasSubstr("identity 'uid:1000' has 2 open sessions"));
  EXPECT_THAT(third.error().message, HasSubstr("sessions_per_identity = 2"));
  EXPECT_EQ(registry.size(), 2u);
  // Another identity has its own; closing one of the first's (or losing it) frees a place.
  EXPECT_TRUE(registry.open("uid:1001", "app").ok());
  ASSERT_TRUE(registry.close(first, "uid:1000").ok());
  EXPECT_TRUE(registry.open("uid:1000", "app").ok());
  EXPECT_FALSE(registry.open("uid:1000", "app").ok());
}

TEST(SessionRegistryTest, HoldingsCountEverythingTheSessionHolds) {
  SessionRegistry registry;
  const std::shared_ptr<Session> session = *registry.open("uid:1000", "app");
  auto before = registry.holdings(session->id());
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_EQ(*before, SessionHoldings{});

  const uint64_t fence = session->fences.add({hal::SyncFence::create(), true});
  const uint64_t model = session->preparedModels.add(PreparedModelEntry{});
  *session->poolBytes.held += 4096;
  ++*session->openBursts;
  auto during = registry.holdings(session->id());
  ASSERT_TRUE(during.ok()) << during.error().message;
  EXPECT_EQ(during->fences, 1u);
  EXPECT_EQ(during->preparedModels, 1u);
  EXPECT_EQ(during->heldBytes, 4096u);
  EXPECT_EQ(during->openBursts, 1u);
  EXPECT_EQ(during->buffers, 0u);
  EXPECT_FALSE(*during == *before);
  EXPECT_THAT(during->toString(), HasSubstr("1 prepared models"));
  EXPECT_THAT(during->toString(), HasSubstr("4096 held bytes"));

  // A client that lets go of everything it made is back where it started; every part of it counts.
  ASSERT_TRUE(session->fences.erase(fence).ok());
  ASSERT_TRUE(session->preparedModels.take(model).ok());
  *session->poolBytes.held -= 4096;
  EXPECT_FALSE(*registry.holdings(session->id()) == *before);  // the burst is still open
  --*session->openBursts;
  EXPECT_EQ(*registry.holdings(session->id()), *before);

  auto unknown = registry.holdings(session->id() + 1);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.error().message, HasSubstr("no session " + std::to_string(session->id() + 1)));
}

TEST(SessionRegistryTest, DroppingASessionReleasesWhatItOwned) {
  SessionRegistry registry;
  std::shared_ptr<Session> session = *registry.open("uid:1000", "app");
  const uint64_t id = session->id();
  auto memory = hal::createHeapMemory(64);
  ASSERT_TRUE(memory.ok()) << memory.error().message;
  const std::weak_ptr<const hal::Memory> mapped = *memory;
  session->registeredMemories.add(std::move(*memory));
  memory = hal::createHeapMemory(1);  // the test keeps no reference to the registered one
  const hal::SyncFence fence = hal::SyncFence::create();
  session->fences.add({fence, true});

  registry.drop(id);  // its WatchSessions stream broke: whoever owns it
  EXPECT_FALSE(registry.find(id, "uid:1000").ok());
  EXPECT_EQ(registry.size(), 0u);
  EXPECT_FALSE(registry.holdings(id).ok());
  // A call still running with the session keeps it whole until it returns...
  EXPECT_FALSE(mapped.expired());
  EXPECT_EQ(fence.state(), hal::SyncFence::State::ACTIVE);
  session.reset();
  // ...then its memory is unmapped, and its fences, which its client can no longer signal, end in error so that
  // whatever waits on them finishes.
  EXPECT_TRUE(mapped.expired());
  EXPECT_EQ(fence.state(), hal::SyncFence::State::ERROR);

  registry.drop(id);  // dropping it again (both the close and the broken stream) is harmless
  EXPECT_EQ(registry.size(), 0u);
}

}  // namespace
}  // namespace nnremote::emulator
