// Signature checks for the control-flow operations, IF and WHILE: their referenced subgraphs'
// inputs and outputs must line up with the operation's own. Part of validateModel.
#ifndef NNREMOTE_HAL_CONTROL_FLOW_VALIDATION_H_
#define NNREMOTE_HAL_CONTROL_FLOW_VALIDATION_H_

#include <string>

#include "hal/types.h"

namespace nnremote::hal {

// Checks `operation` (of `subgraph`, named `where` in messages) if it is IF or WHILE; other
// operations pass. Operand indexes must already be known to be in range.
Status validateControlFlowOperation(const Model& model, const Model::Subgraph& subgraph, const Operation& operation,
                                    const std::string& where);

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_CONTROL_FLOW_VALIDATION_H_
