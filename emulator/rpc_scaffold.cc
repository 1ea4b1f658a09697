#include "emulator/rpc_scaffold.h"

#include <cstdlib>
#include <iostream>

namespace nnremote::emulator {
void misregistered(const std::string& method, const std::string& why) {
  std::cerr << "npu_emulator: the RPC table's " << method << " " << why << "\n";
  std::abort();
}

void serveRpcTable(const RpcTable& table, const RpcServices& services,
                   const google::protobuf::ServiceDescriptor& descriptor,
                   const std::function<void(int index, grpc::internal::MethodHandler*)>& markCallback) {
  for (const RpcEntry& entry : table.entries()) {
    const google::protobuf::MethodDescriptor* method = descriptor.FindMethodByName(entry.method);
    if (method == nullptr) misregistered(entry.method, "is not a method of " + descriptor.full_name());
    if (method->client_streaming() || method->server_streaming()) misregistered(entry.method, "streams");
    if (method->input_type() != entry.request || method->output_type() != entry.response) {
      misregistered(entry.method, "takes " + entry.request->full_name() + " and answers " +
                                      entry.response->full_name() + "; the service says " +
                                      method->input_type()->full_name() + " and " + method->output_type()->full_name());
    }
    // Generated services number their methods in the order the .proto declares them.
    markCallback(method->index(), entry.makeHandler(services));
  }
}

}  // namespace nnremote::emulator
