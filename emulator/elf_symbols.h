// Names the function an address is in from the full symbol table (.symtab) of the ELF file it
// was loaded from, for crash reports. The dynamic loader knows only a file's dynamic symbols
// (dladdr), the exported functions; the full table, which a file not stripped keeps on disk, has
// every function. Without allocating, mapping memory or taking locks, and fast: the table is read
// in large chunks and scanned in memory (absl::Symbolize, which reads it a few symbols at a time,
// took some 5 ms of CPU time a report).
#ifndef NNREMOTE_EMULATOR_ELF_SYMBOLS_H_
#define NNREMOTE_EMULATOR_ELF_SYMBOLS_H_

#include <cstddef>
#include <cstdint>

namespace nnremote::emulator {

// An address to name, as the file's own symbols count it (from the file's load base, for a
// shared library or a position-independent executable), and the name of the function it lies in,
// demangled where it can be; empty if none is found.
struct FunctionLookup {
  uintptr_t address = 0;
  char name[256] = {};
};

// Names the functions of `lookups` from the full symbol table of the ELF file at `path`, read once
// for all of them; none if the file is stripped. Files are opened once and kept
// open (a few dozen, for the process's last moments). Async-signal-safe, and not reentrant: its
// buffers are static, so that it needs little stack (a crashed thread may be on a small alternate
// signal stack, as under AddressSanitizer).
void findFunctions(const char* path, FunctionLookup* lookups, size_t count);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_ELF_SYMBOLS_H_
