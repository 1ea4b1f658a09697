// Conversion between the canonical hal types and the wire schema, both directions.
//
// toWire never fails on a well-formed hal value except where something cannot cross a process
// boundary (an in-process IBuffer pool). fromWire checks only what the conversion itself needs;
// HAL rules are checked afterwards by hal::validateModel / validateRequestForModel, so a
// malformed message yields the same messages as a malformed in-process call.
#ifndef NNREMOTE_WIRE_CONVERSIONS_H_
#define NNREMOTE_WIRE_CONVERSIONS_H_

#include <functional>
#include <vector>

#include "hal/execution_profile.h"
#include "hal/i_device.h"
#include "hal/types.h"
#include "wire/nnremote.pb.h"

namespace nnremote::wire {


// Resolves a wire Memory that is not inline (registered shared memory, a bulk transfer) to a
// mapped hal memory; supplied by the server, which knows the session's registrations.
using MemoryResolver = std::function<hal::Result<hal::SharedMemory>(const wire::Memory&)>;

// Inline memory travels inside one gRPC message, so it is bounded; larger pools use shared
// memory or bulk transfers.
constexpr uint64_t kMaxInlineMemoryBytes = uint64_t{1} << 30;

// Accepts inline memories only; anything else is "not supported yet".
hal::Result<hal::SharedMemory> resolveInlineOnly(const wire::Memory& memory);

// ---- Errors and small types ------------------------------------------------------------------
wire::HalError toWire(const hal::Error& error);
hal::Error fromWire(const wire::HalError& error);
wire::OutputShape toWire(const hal::OutputShape& shape);
hal::OutputShape fromWire(const wire::OutputShape& shape);
wire::Timing toWire(const hal::Timing& timing);
hal::Timing fromWire(const wire::Timing& timing);
wire::ExecutionProfile toWire(const hal::ExecutionProfile& profile);
hal::ExecutionProfile fromWire(const wire::ExecutionProfile& profile);
wire::Priority toWire(hal::Priority priority);
hal::Priority fromWire(wire::Priority priority);

// Deadlines travel as time remaining; a deadline already passed travels as 0 remaining.
void toWire(const hal::OptionalTimePoint& deadline, wire::Deadline* out, bool* hasDeadline);
hal::OptionalTimePoint deadlineFromWire(const wire::Deadline& deadline, bool hasDeadline);

// ---- Devices ---------------------------------------------------------------------------------
wire::Capabilities toWire(const hal::Capabilities& capabilities);
hal::Capabilities fromWire(const wire::Capabilities& capabilities);
wire::Extension toWire(const hal::Extension& extension);
hal::Extension fromWire(const wire::Extension& extension);
wire::DeviceInfo deviceInfo(const hal::IDevice& device);

// Encodes one memory pool for the wire; `withContents` is false for pools only outputs use
// (their size travels, their bytes do not). The proxy driver supplies an encoder that registers
// shared memory or uploads large pools in bulk; the default puts everything inline.
using MemoryEncoder =
    std::function<hal::Result<wire::Memory>(const hal::SharedMemory& memory, bool withContents)>;
hal::Result<wire::Memory> encodeInline(const hal::SharedMemory& memory, bool withContents);

// ---- Model -----------------------------------------------------------------------------------
// POINTER operands are copied into operand_values as CONSTANT_COPY, since pointers cannot
// cross a process boundary.
hal::Result<wire::Model> toWire(const hal::Model& model, const MemoryEncoder& encode = encodeInline);
hal::Result<hal::Model> fromWire(const wire::Model& model, const MemoryResolver& resolve);

// ---- Request ---------------------------------------------------------------------------------
// How each request pool travels.
struct RequestPoolPlan {
  // Pools that some input reads: their bytes travel.
  std::vector<bool> sendContents;
};
RequestPoolPlan planRequestPools(const hal::Request& request);

// POINTER arguments are not supported on the wire: the proxy driver first moves them to pools.
hal::Result<wire::Request> toWire(const hal::Request& request,
                                  const MemoryEncoder& encode = encodeInline);
hal::Result<hal::Request> fromWire(const wire::Request& request, const MemoryResolver& resolve);

// True for outputs whose pool travelled by value (inline or bulk): their bytes must travel
// back. Outputs in registered shared memory are written in place.
bool outputTravelsBack(const wire::Request& request, size_t outputIndex);

}  // namespace nnremote::wire

#endif  // NNREMOTE_WIRE_CONVERSIONS_H_
