#include "emulator/crash_report.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "absl/debugging/internal/demangle.h"
#include "emulator/elf_symbols.h"
#include "emulator/signal_safe_text.h"
#include "emulator/thread_wait.h"
#include "middleware/backend_calls.h"

namespace nnremote::emulator {
namespace {

constexpr int kMaxFrames = 48;
char who[320] = "npu_emulator";  // the report's subject, set once, before any crash
char program[64] = "npu_emulator";  // the program writing it: each line's prefix
// Where the main program (this file is part of it) is loaded: its frames are named from
// /proc/self/exe, since the name the loader has for it is argv[0], found on the PATH maybe.
const void* mainProgram = nullptr;

// One line of the report, built in place (nothing here allocates), written with the server's
// prefix.
class Line : public SignalSafeText<1023> {
 public:
  // In one write: lines of threads writing at once stay whole.
  void writeTo(int fd) {
    static const char separator[] = ": ";
    iovec parts[] = {{program, std::strlen(program)},
                     {const_cast<char*>(separator), sizeof separator - 1},
                     {const_cast<char*>(endedBy('\n')), size() + 1}};
    (void)!::writev(fd, parts, 3);
    clear();
  }
};

// What the kernel says of a fault (siginfo's si_code), in words.
struct CodeMeaning {
  int signal;
  int code;
  const char* meaning;
};
constexpr CodeMeaning kMeanings[] = {
    {SIGSEGV, SEGV_MAPERR, "address not mapped"},
    {SIGSEGV, SEGV_ACCERR, "no permission for the access"},
    {SIGBUS, BUS_ADRALN, "misaligned address"},
    {SIGBUS, BUS_ADRERR, "nonexistent physical address"},
    {SIGBUS, BUS_OBJERR, "object-specific hardware error"},
    {SIGFPE, FPE_INTDIV, "integer divide by zero"},
    {SIGFPE, FPE_INTOVF, "integer overflow"},
    {SIGFPE, FPE_FLTDIV, "floating-point divide by zero"},
    {SIGFPE, FPE_FLTINV, "invalid floating-point operation"},
    {SIGILL, ILL_ILLOPC, "illegal opcode"},
    {SIGILL, ILL_ILLOPN, "illegal operand"},
    {SIGILL, ILL_PRVOPC, "privileged opcode"},
};

const char* codeMeaning(int signal, int code) {
  for (const CodeMeaning& known : kMeanings) {
    if (known.signal == signal && known.code == code) return known.meaning;
  }
  return nullptr;
}

// The interrupted instruction and the stack pointer of a signal's context; zeros where this
// architecture's context is not known here.
struct Registers {
  uintptr_t pc = 0;
  uintptr_t sp = 0;
};

Registers registersOf(const void* ucontext) {
  if (ucontext == nullptr) return {};
  const auto* context = static_cast<const ucontext_t*>(ucontext);
#if defined(__x86_64__)
  return {static_cast<uintptr_t>(context->uc_mcontext.gregs[REG_RIP]),
          static_cast<uintptr_t>(context->uc_mcontext.gregs[REG_RSP])};
#elif defined(__aarch64__)
  return {static_cast<uintptr_t>(context->uc_mcontext.pc), static_cast<uintptr_t>(context->uc_mcontext.sp)};
#else
  (void)context;
  return {};
#endif
}

// Where a frame's pc is: the file it was loaded from, and the address addr2line takes for it
// there (the offset from where the file is loaded, for a shared library or a position-independent
// executable).
struct Place {
  Dl_info where{};
  bool known = false;
  uintptr_t inFile = 0;
};

Place placeOf(const void* pc) {
  Place place;
  if (::dladdr(pc, &place.where) == 0 || place.where.dli_fbase == nullptr) return place;
  place.known = true;
  const bool relocated = static_cast<const Elf64_Ehdr*>(place.where.dli_fbase)->e_type == ET_DYN;
  const auto address = reinterpret_cast<uintptr_t>(pc);
  place.inFile = relocated ? address - reinterpret_cast<uintptr_t>(place.where.dli_fbase) : address;
  return place;
}

bool hasName(const Dl_info& where) { return where.dli_fname != nullptr && where.dli_fname[0] != '\0'; }

// The file to read a loaded object's symbols from.
const char* symbolFile(const Dl_info& where) {
  if (where.dli_fbase == mainProgram) return "/proc/self/exe";
  return hasName(where) ? where.dli_fname : nullptr;
}

// Names the functions of `count` frames, reading each file's symbols once for all of its frames.
// `returnAddress[i]`: a caller's frame, whose pc is the instruction after its call, looked up one
// byte back, since a call to a function that does not return can be its function's last
// instruction.
void nameFunctions(const Place* places, const bool* returnAddress, int count, FunctionLookup* names) {
  bool done[kMaxFrames] = {};
  static FunctionLookup batch[kMaxFrames];  // static: see writeCrashReport
  int members[kMaxFrames];
  for (int i = 0; i < count; ++i) {
    if (done[i] || !places[i].known || symbolFile(places[i].where) == nullptr) continue;
    int size = 0;
    for (int j = i; j < count; ++j) {
      if (done[j] || !places[j].known || places[j].where.dli_fbase != places[i].where.dli_fbase) continue;
      done[j] = true;
      members[size] = j;
      batch[size++].address = places[j].inFile - (returnAddress[j] ? 1 : 0);
    }
    findFunctions(symbolFile(places[i].where), batch, static_cast<size_t>(size));
    for (int k = 0; k < size; ++k) std::memcpy(names[members[k]].name, batch[k].name, sizeof batch[k].name);
  }
}

}  // namespace

void prepareCrashReports(const std::string& subject, const std::string& programName) {
  std::strncpy(who, subject.c_str(), sizeof who - 1);
  std::strncpy(program, programName.c_str(), sizeof program - 1);
  Dl_info self{};
  if (::dladdr(reinterpret_cast<const void*>(&prepareCrashReports), &self) != 0) mainProgram = self.dli_fbase;
  // The first backtrace() loads the unwinder (libgcc_s), which allocates: not in a crash.
  void* frames[2];
  (void)::backtrace(frames, 2);
}

void describeCrashSignal(int signal, const siginfo_t& info, const void* ucontext, char* out, size_t size) {
  if (size == 0) return;
  Line line;
  const char* name = sigabbrev_np(signal);
  line.text("SIG").text(name != nullptr ? name : "?");
  // Sent by the kernel for a faulting instruction (not by kill or raise): what and where.
  const bool fault = signal == SIGSEGV || signal == SIGBUS || signal == SIGILL || signal == SIGFPE;
  if (fault && info.si_code > 0) {
    line.text(" (");
    // Nothing is ever mapped in the first page: an access there is through a null pointer (plus
    // a field's offset), as Android's tombstones say too. One next to the stack pointer hit the
    // guard below the thread's stack: the stack overflowed (a frame is made by moving the stack
    // pointer down past it, then its first access can be anywhere in the frame, so above it too).
    const auto address = reinterpret_cast<uintptr_t>(info.si_addr);
    const uintptr_t stack = registersOf(ucontext).sp;
    const bool nullPointer = signal == SIGSEGV && address < 4096;
    const bool overflow = signal == SIGSEGV && stack != 0 && address + (1u << 20) > stack && address < stack + (64u << 10);
    const char* meaning = nullPointer ? "null pointer dereference"
                          : overflow  ? "stack overflow"
                                      : codeMeaning(signal, info.si_code);
    if (meaning != nullptr) line.text(meaning).text(", ");
    line.text("at ").hex(reinterpret_cast<uintptr_t>(info.si_addr)).text(")");
  }
  std::strncpy(out, line.c_str(), size - 1);
  out[size - 1] = '\0';
}

namespace {

// The calling thread's id and name, as "thread T (NAME)".
SignalSafeText<1023>& thisThread(SignalSafeText<1023>& line) {
  char thread[17] = {};
  ::prctl(PR_GET_NAME, thread);
  return line.text("thread ").decimal(static_cast<uint64_t>(::gettid())).text(" (").text(thread).text(")");
}

// The calling thread's stack, a frame a line, from `from` (see writeCrashReport). `frames` come
// from backtrace() in the caller, whose own frame is then left out too.
void writeFrames(int fd, void* const* frames, int count, const void* from, bool fromSignal) {
  Line line;
  // Past the report's functions, the handler and (for a signal) the kernel's signal frame; all
  // of it if `from` is not on this stack.
  int first = 0;
  for (int i = 0; i < count; ++i) {
    if (frames[i] == from) {
      first = i;
      break;
    }
  }
  // Static, not on the stack: a crashed thread may be on a small alternate signal stack (as
  // under AddressSanitizer, which gives every thread one of some tens of KiB), and one report is
  // written at a time.
  static Place places[kMaxFrames];
  bool returnAddress[kMaxFrames];
  static FunctionLookup names[kMaxFrames];
  const int shown = count - first;
  for (int i = 0; i < shown; ++i) {
    places[i] = placeOf(frames[first + i]);
    returnAddress[i] = i != 0 || !fromSignal;
    names[i].name[0] = '\0';  // a file that cannot be read names none
  }
  nameFunctions(places, returnAddress, shown, names);
  for (int i = 0; i < shown; ++i) {
    // A run of the same frame (a recursion, say, to a stack overflow) is shown once, with its count.
    int repeats = 0;
    while (i + repeats + 1 < shown && frames[first + i + repeats + 1] == frames[first + i]) ++repeats;
    if (repeats > 1 && i > 0 && frames[first + i - 1] == frames[first + i]) {
      line.text("  ... the same frame ").decimal(static_cast<uint64_t>(repeats + 1)).text(" times more");
      line.writeTo(fd);
      i += repeats;
      continue;
    }
    line.text("  #").text(i < 10 ? "0" : "").decimal(static_cast<uint64_t>(i)).text(" pc ");
    const Dl_info& where = places[i].where;
    if (!places[i].known) {
      line.hex(reinterpret_cast<uintptr_t>(frames[first + i]), 16).text("  ??");
    } else {
      line.hex(places[i].inFile, 16).text("  ").text(hasName(where) ? where.dli_fname : program);
      // From the full symbol table, else (a stripped file) from the dynamic one the loader has.
      char demangled[sizeof names[i].name];
      const char* name = names[i].name;
      if (name[0] == '\0' && where.dli_sname != nullptr) {
        const bool isCxx = absl::debugging_internal::Demangle(where.dli_sname, demangled, sizeof demangled);
        name = isCxx ? demangled : where.dli_sname;
      }
      if (name[0] != '\0') line.text(" (").text(name).text(")");
    }
    line.writeTo(fd);
  }
}

}  // namespace

void writeCrashReport(int fd, const char* event, const char* cause, const void* from, bool fromSignal) {
  void* frames[kMaxFrames];
  const int count = ::backtrace(frames, kMaxFrames);
  Line line;
  line.text(who).text(" (pid ").decimal(static_cast<uint64_t>(::getpid())).text(") ");
  line.text(event).text(": ").text(cause);
  const char* call = middleware::BackendCall::currentOnThisThread();
  if (call != nullptr && std::strstr(cause, call) == nullptr) line.text(" in ").text(call);
  thisThread(line.text(", on ")).text("; its stack:");
  line.writeTo(fd);
  writeFrames(fd, frames, count, from, fromSignal);
}

void writeOtherThreadsHeading(int fd) {
  Line line;
  line.text(who).text(" (pid ").decimal(static_cast<uint64_t>(::getpid())).text("): its other threads:");
  line.writeTo(fd);
}

void writeThreadStack(int fd, const void* from, bool fromSignal) {
  void* frames[kMaxFrames];
  const int count = ::backtrace(frames, kMaxFrames);
  Line line;
  thisThread(line);
  if (const char* call = middleware::BackendCall::currentOnThisThread()) line.text(" in ").text(call);
  line.text("; its stack:");
  line.writeTo(fd);
  writeFrames(fd, frames, count, from, fromSignal);
}

namespace {

// "thread T (NAME) WHY[; it is WAIT][; where it will go on:]" after what `line` holds, then the
// one frame the kernel tells: the instruction after its system call, exact (not a return address).
void writeStacklessThread(int fd, Line& line, pid_t thread, const char* name, const char* why, const ThreadWait& wait) {
  line.text("thread ").decimal(static_cast<uint64_t>(thread)).text(" (").text(name).text(") ").text(why);
  if (wait.known) describeThreadWait(wait, line.text("; it is "));
  if (wait.pc != 0) line.text("; where it will go on:");
  line.writeTo(fd);
  if (wait.pc == 0) return;
  void* pc = reinterpret_cast<void*>(wait.pc);
  writeFrames(fd, &pc, 1, nullptr, /*fromSignal=*/true);
}

}  // namespace

void writeCrashReportOfStacklessThread(int fd, const char* event, const char* cause, pid_t thread, const char* name,
                                       const char* why, const ThreadWait& wait) {
  Line line;
  line.text(who).text(" (pid ").decimal(static_cast<uint64_t>(::getpid())).text(") ");
  line.text(event).text(": ").text(cause).text(", on ");
  writeStacklessThread(fd, line, thread, name, why, wait);
}

void writeThreadWithoutStack(int fd, pid_t thread, const char* name, const char* why, const ThreadWait& wait) {
  Line line;
  writeStacklessThread(fd, line, thread, name, why, wait);
}

const void* interruptedInstruction(const void* ucontext) {
  return reinterpret_cast<const void*>(registersOf(ucontext).pc);
}

}  // namespace nnremote::emulator
