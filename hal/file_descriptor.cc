#include <unistd.h>

#include "hal/types.h"

namespace nnremote::hal {

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace nnremote::hal
