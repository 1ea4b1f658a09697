#include "drivers/sim/kernels/window.h"

namespace nnremote::sim {

Status validateWindowOperands(const OperationContext& context, size_t first, bool explicitPadding) {
  const size_t count = windowOperandCount(explicitPadding);
  if (!explicitPadding && context.hasValue(first)) {
    const int32_t scheme = context.scalar<int32_t>(first);
    if (scheme != static_cast<int32_t>(PaddingScheme::SAME) &&
        scheme != static_cast<int32_t>(PaddingScheme::VALID)) {
      return unsupported(context) << "input " << first << " = " << scheme
                                  << " is not a padding scheme (1 = SAME, 2 = VALID)";
    }
  }
  for (size_t i = first + count - 2; i < first + count; ++i) {
    if (context.hasValue(i) && context.scalar<int32_t>(i) <= 0) {
      return unsupported(context) << "stride (input " << i << ") = " << context.scalar<int32_t>(i)
                                  << " must be positive";
    }
  }
  if (explicitPadding) {
    for (size_t i = first; i < first + 4; ++i) {
      if (context.hasValue(i) && context.scalar<int32_t>(i) < 0) {
        return unsupported(context) << "padding (input " << i << ") = "
                                    << context.scalar<int32_t>(i) << " must not be negative";
      }
    }
  }
  return {};
}

void readWindow(const OperationContext& context, size_t first, bool explicitPadding,
                uint32_t inWidth, uint32_t inHeight, Window* window) {
  if (explicitPadding) {
    window->width = {static_cast<uint32_t>(context.scalar<int32_t>(first)),
                     static_cast<uint32_t>(context.scalar<int32_t>(first + 1))};
    window->height = {static_cast<uint32_t>(context.scalar<int32_t>(first + 2)),
                      static_cast<uint32_t>(context.scalar<int32_t>(first + 3))};
    window->strideWidth = context.scalar<int32_t>(first + 4);
    window->strideHeight = context.scalar<int32_t>(first + 5);
    return;
  }
  const auto scheme = static_cast<PaddingScheme>(context.scalar<int32_t>(first));
  window->strideWidth = context.scalar<int32_t>(first + 1);
  window->strideHeight = context.scalar<int32_t>(first + 2);
  window->width = implicitPadding(scheme, inWidth, window->strideWidth, window->filterWidth,
                                  window->dilationWidth);
  window->height = implicitPadding(scheme, inHeight, window->strideHeight, window->filterHeight,
                                   window->dilationHeight);
}

}  // namespace nnremote::sim
