#include "emulator/elf_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "absl/debugging/internal/demangle.h"

namespace nnremote::emulator {
namespace {

// The files opened so far, kept open for the process's last moments. Read with pread into the
// caller's stack, not mapped: a process that ran out of address space (RLIMIT_AS) has none left
// for a mapping, and that is one of the crashes reported.
struct Opened {
  char path[256] = {};
  int fd = -1;
};
constexpr int kMaxFiles = 32;
Opened files[kMaxFiles];
std::atomic<int> claimed{0};

int openedFile(const char* path) {
  const int known = claimed.load();
  for (int i = 0; i < known && i < kMaxFiles; ++i) {
    if (std::strncmp(files[i].path, path, sizeof files[i].path) == 0) return files[i].fd;
  }
  if (std::strlen(path) >= sizeof files[0].path) return -1;
  const int slot = claimed.fetch_add(1);
  if (slot >= kMaxFiles) return -1;
  std::strcpy(files[slot].path, path);
  files[slot].fd = ::open(path, O_RDONLY | O_CLOEXEC);
  return files[slot].fd;
}

// All of [offset, offset + bytes) of the file, or false.
bool readAt(int fd, uint64_t offset, void* into, size_t bytes) {
  auto* out = static_cast<char*>(into);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd, out, bytes, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    offset += static_cast<uint64_t>(got);
    bytes -= static_cast<size_t>(got);
  }
  return true;
}

bool within(uint64_t offset, uint64_t bytes, uint64_t fileSize) {
  return offset <= fileSize && bytes <= fileSize - offset;
}

// For each lookup not yet named, the function symbol of `table` containing its address; then their names, from `strings`, the table's string section.
void searchTable(int fd, uint64_t fileSize, const Elf64_Shdr& table, const Elf64_Shdr& strings,
                 FunctionLookup* lookups, size_t count) {
  if (table.sh_entsize != sizeof(Elf64_Sym) || !within(table.sh_offset, table.sh_size, fileSize) ||
      !within(strings.sh_offset, strings.sh_size, fileSize)) {
    return;
  }
  constexpr size_t kMaxLookups = 64;
  count = std::min(count, kMaxLookups);
  uint64_t bestValue[kMaxLookups];
  uint64_t nameOffset[kMaxLookups];
  bool found[kMaxLookups] = {};
  // Most symbols lie outside every address sought: two comparisons rule them out.
  uint64_t lowest = UINT64_MAX, highest = 0;
  for (size_t j = 0; j < count; ++j) {
    lowest = std::min<uint64_t>(lowest, lookups[j].address);
    highest = std::max<uint64_t>(highest, lookups[j].address);
  }
  static Elf64_Sym chunk[512];  // static: see findFunctions
  const uint64_t symbols = table.sh_size / sizeof(Elf64_Sym);
  for (uint64_t first = 0; first < symbols; first += std::size(chunk)) {
    const uint64_t inChunk = std::min<uint64_t>(std::size(chunk), symbols - first);
    if (!readAt(fd, table.sh_offset + first * sizeof(Elf64_Sym), chunk, inChunk * sizeof(Elf64_Sym))) return;
    for (uint64_t i = 0; i < inChunk; ++i) {
      const Elf64_Sym& symbol = chunk[i];
      const int type = ELF64_ST_TYPE(symbol.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || symbol.st_shndx == SHN_UNDEF) continue;
      const uint64_t size = symbol.st_size == 0 ? 1 : symbol.st_size;
      const bool endsBelow = lowest >= symbol.st_value && lowest - symbol.st_value >= size;
      if (symbol.st_value > highest || endsBelow) continue;
      for (size_t j = 0; j < count; ++j) {
        const uint64_t address = lookups[j].address;
        if (lookups[j].name[0] != '\0' || address < symbol.st_value || address - symbol.st_value >= size) continue;
        if (found[j] && symbol.st_value <= bestValue[j]) continue;
        found[j] = true;
        bestValue[j] = symbol.st_value;
        nameOffset[j] = symbol.st_name;
      }
    }
  }
  for (size_t j = 0; j < count; ++j) {
    if (!found[j] || nameOffset[j] >= strings.sh_size) continue;
    char name[512] = {};
    const uint64_t length = std::min<uint64_t>(sizeof name - 1, strings.sh_size - nameOffset[j]);
    if (!readAt(fd, strings.sh_offset + nameOffset[j], name, length) || name[0] == '\0') continue;
    char* out = lookups[j].name;
    if (!absl::debugging_internal::Demangle(name, out, static_cast<int>(sizeof lookups[j].name))) {
      const size_t copied = std::min(std::strlen(name), sizeof lookups[j].name - 1);  // not a C++ name
      std::memcpy(out, name, copied);
      out[copied] = '\0';
    }
  }
}

}  // namespace

void findFunctions(const char* path, FunctionLookup* lookups, size_t count) {
  for (size_t i = 0; i < count; ++i) lookups[i].name[0] = '\0';
  const int fd = openedFile(path);
  struct stat status {};
  if (fd < 0 || ::fstat(fd, &status) != 0) return;
  const auto fileSize = static_cast<uint64_t>(status.st_size);
  Elf64_Ehdr header{};
  if (!readAt(fd, 0, &header, sizeof header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr) ||
      !within(header.e_shoff, uint64_t{header.e_shnum} * sizeof(Elf64_Shdr), fileSize)) {
    return;
  }
  // The section headers, read at once if they fit (they do but in unusual files), else one by one.
  static Elf64_Shdr headers[128];
  const bool allRead = header.e_shnum <= std::size(headers) &&
                       readAt(fd, header.e_shoff, headers, size_t{header.e_shnum} * sizeof(Elf64_Shdr));
  const auto sectionAt = [&](uint32_t index, Elf64_Shdr& section) {
    if (index >= header.e_shnum) return false;
    if (allRead) {
      section = headers[index];
      return true;
    }
    return readAt(fd, header.e_shoff + uint64_t{index} * sizeof section, &section, sizeof section);
  };
  for (uint32_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr table{}, strings{};
    if (!sectionAt(i, table) || table.sh_type != SHT_SYMTAB || !sectionAt(table.sh_link, strings)) continue;
    searchTable(fd, fileSize, table, strings, lookups, count);
  }
}

}  // namespace nnremote::emulator
