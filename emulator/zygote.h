// `npu_emulator --backend-zygote=FD`: the process backend hosts are forked from (host_zygote.h
// says why). It stays single-threaded, so forking it is safe, and forks one host per kSpawn on
// the channel FD until the server closes it.
#ifndef NNREMOTE_EMULATOR_ZYGOTE_H_
#define NNREMOTE_EMULATOR_ZYGOTE_H_

namespace nnremote::emulator {

// Runs the zygote until the server closes the channel; `argv` is its own command line, which
// each host rewrites to say what it is. Returns the exit status.
int runHostZygote(int channelFd, char** argv);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_ZYGOTE_H_
