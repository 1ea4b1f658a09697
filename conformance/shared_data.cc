#include "conformance/shared_data.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace nnremote::conformance {

std::string sharedDataDirectory(const std::string& sub) {
  namespace fs = std::filesystem;
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("NNREMOTE_SHARED_DIR"); env != nullptr && *env) roots.push_back(env);
  std::error_code error;
  const fs::path readme = fs::canonical("README.md", error);
  if (!error) roots.push_back(readme.parent_path() / ".." / "shared");
  if (const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    roots.push_back(fs::path(workspace) / ".." / "shared");
  }
  roots.push_back(fs::path("..") / "shared");
  for (const fs::path& root : roots) {
    const fs::path candidate = root / sub;
    if (fs::is_directory(candidate, error)) return fs::canonical(candidate, error).string();
  }
  return "";
}

}  // namespace nnremote::conformance
