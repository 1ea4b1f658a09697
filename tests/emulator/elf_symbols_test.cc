// emulator/elf_symbols.h: the function an address is in, from the file's full symbol table (a
// function no other file can see, demangled), and nothing from a stripped library or from files
// that are not what they claim (a symbol table larger than the file is not read at all).
#include "emulator/elf_symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;

// Only in this test's full symbol table: internal linkage, so not among its dynamic symbols.
__attribute__((noinline)) int aFunctionOnlyThisFileNames(int x) {
  asm volatile("");
  return x * 3 + 1;
}

// Where a function is: the file it was loaded from, and its address as that file counts it.
struct Place {
  std::string file;
  uintptr_t address = 0;
};

Place placeOf(const void* function) {
  Dl_info where{};
  if (::dladdr(function, &where) == 0) return {};
  const bool relocated = static_cast<const Elf64_Ehdr*>(where.dli_fbase)->e_type == ET_DYN;
  const auto address = reinterpret_cast<uintptr_t>(function);
  return {where.dli_fname, relocated ? address - reinterpret_cast<uintptr_t>(where.dli_fbase) : address};
}

// The name findFunctions gives `address` in `file` (empty: none).
std::string functionAt(const std::string& file, uintptr_t address) {
  FunctionLookup lookup;
  lookup.address = address;
  std::strcpy(lookup.name, "stale");  // what it held before is not kept
  findFunctions(file.c_str(), &lookup, 1);
  return lookup.name;
}

std::string tempFile(const std::string& name, const std::string& contents) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

std::string contentsOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(ElfSymbolsTest, NamesAFunctionFromTheFilesFullSymbolTableDemangled) {
  EXPECT_EQ(aFunctionOnlyThisFileNames(1), 4);
  const Place place = placeOf(reinterpret_cast<const void*>(&aFunctionOnlyThisFileNames));
  ASSERT_FALSE(place.file.empty());
  // The main program, by the file the kernel mapped (its loader name is only argv[0]).
  EXPECT_EQ(functionAt("/proc/self/exe", place.address + 1),
            "nnremote::emulator::(anonymous namespace)::aFunctionOnlyThisFileNames()");
}

TEST(ElfSymbolsTest, AStrippedLibraryHasNoFullTableToNameFrom) {
  // Debian strips its libraries: getpid is only among libc's dynamic symbols (which dladdr
  // names). Not abort: ThreadSanitizer's runtime defines its own, which &::abort then names.
  const Place place = placeOf(reinterpret_cast<const void*>(&::getpid));
  ASSERT_THAT(place.file, HasSubstr("libc.so"));
  EXPECT_EQ(functionAt(place.file, place.address), "");
}

TEST(ElfSymbolsTest, EachOfManyAddressesIsNamedInOneRead) {
  const Place place = placeOf(reinterpret_cast<const void*>(&aFunctionOnlyThisFileNames));
  const Place test = placeOf(reinterpret_cast<const void*>(&functionAt));
  FunctionLookup lookups[3];
  lookups[0].address = place.address;
  lookups[1].address = 0;  // in no function
  lookups[2].address = test.address;
  findFunctions("/proc/self/exe", lookups, 3);
  EXPECT_THAT(lookups[0].name, HasSubstr("aFunctionOnlyThisFileNames"));
  EXPECT_STREQ(lookups[1].name, "");
  EXPECT_THAT(lookups[2].name, HasSubstr("functionAt"));
}

TEST(ElfSymbolsTest, AnAddressInNoFunctionIsNamedNothing) {
  EXPECT_EQ(functionAt("/proc/self/exe", 0), "");  // the ELF header
  EXPECT_EQ(functionAt("/proc/self/exe", uintptr_t{1} << 46), "");
}

TEST(ElfSymbolsTest, FilesThatAreNotWhatTheyClaimAreNamedNothing) {
  EXPECT_EQ(functionAt("/nonexistent/library.so", 0x1000), "");
  EXPECT_EQ(functionAt(tempFile("text.so", "not an ELF file at all"), 0x1000), "");
  const Place place = placeOf(reinterpret_cast<const void*>(&aFunctionOnlyThisFileNames));
  const std::string whole = contentsOf("/proc/self/exe");
  ASSERT_GT(whole.size(), sizeof(Elf64_Ehdr));
  // Its header alone: the section headers it points to are past the end.
  EXPECT_EQ(functionAt(tempFile("header-only.so", whole.substr(0, sizeof(Elf64_Ehdr))), place.address), "");
  // A symbol table that claims more than the file holds is not read at all (the function is in
  // the part that is there).
  std::string overclaiming = whole;
  const auto* header = reinterpret_cast<const Elf64_Ehdr*>(overclaiming.data());
  ASSERT_LE(header->e_shoff + size_t{header->e_shnum} * sizeof(Elf64_Shdr), overclaiming.size());
  auto* sections = reinterpret_cast<Elf64_Shdr*>(overclaiming.data() + header->e_shoff);
  bool claimed = false;
  for (int i = 0; i < header->e_shnum; ++i) {
    if (sections[i].sh_type != SHT_SYMTAB) continue;
    sections[i].sh_size = (uint64_t{1} << 32) * sizeof(Elf64_Sym);
    claimed = true;
  }
  ASSERT_TRUE(claimed) << "this test has no full symbol table";
  EXPECT_EQ(functionAt(tempFile("overclaiming.so", overclaiming), place.address), "");
  // The intact file still names it.
  EXPECT_THAT(functionAt(tempFile("whole.so", whole), place.address), HasSubstr("aFunctionOnlyThisFileNames"));
}

}  // namespace
}  // namespace nnremote::emulator
