#include "hal/file_contents.h"

#include <fstream>
#include <sstream>

namespace nnremote::hal {

Result<std::string> readFileContents(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  if (file) contents << file.rdbuf();
  if (!file) return invalidArgument() << "cannot read " << path;
  return contents.str();
}

}  // namespace nnremote::hal
