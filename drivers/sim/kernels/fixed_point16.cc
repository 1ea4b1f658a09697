#include "drivers/sim/kernels/fixed_point16.h"

namespace nnremote::sim::fixed16 {
namespace {

// Newton-Raphson for 1 / d with d = halfDenominator in [1/2, 1], from the usual 48/17 - 32/17 d
// start; three steps reach full 16-bit precision.
Fixed<2> reciprocalOfHalfDenominator(Fixed<0> halfDenominator) {
  const Fixed<2> fortyEightSeventeenths{fromQ31(1515870810)};
  const Fixed<2> minusThirtyTwoSeventeenths{fromQ31(-1010580540)};
  Fixed<2> x = fortyEightSeventeenths + halfDenominator * minusThirtyTwoSeventeenths;
  for (int i = 0; i < 3; ++i) {
    const Fixed<2> halfDenominatorTimesX = halfDenominator * x;
    const Fixed<2> oneMinusHalfDenominatorTimesX = Fixed<2>::one() - halfDenominatorTimesX;
    x = x + rescale<2>(x * oneMinusHalfDenominatorTimesX);
  }
  return x;
}

}  // namespace

Fixed<0> expOnIntervalNegativeQuarterToZero(Fixed<0> a) {
  const Fixed<0> expMinusOneEighth{fromQ31(1895147668)};
  const Fixed<0> oneThird{fromQ31(715827883)};
  const Fixed<0> x = a + Fixed<0>::powerOfTwo(-3);
  const Fixed<0> x2 = x * x;
  const Fixed<0> x3 = x2 * x;
  const Fixed<0> x4 = x2 * x2;
  const Fixed<0> x4Over4 = Fixed<0>{saturatingRoundingMultiplyByPowerOfTwo(x4.raw, -2)};
  const Fixed<0> polynomial =
      Fixed<0>{saturatingRoundingMultiplyByPowerOfTwo((((x4Over4 + x3) * oneThird) + x2).raw, -1)};
  return saturatingAdd(expMinusOneEighth, expMinusOneEighth * (x + polynomial));
}

Fixed<0> oneOverOnePlusX(Fixed<0> a) {
  const Fixed<2> x = reciprocalOfHalfDenominator(roundingHalfSum(a, Fixed<0>::one()));
  return rescale<0>(exactMultiplyByPowerOfTwo<-1>(x));
}

Fixed<0> oneMinusXOverOnePlusX(Fixed<0> a) {
  const Fixed<2> x = reciprocalOfHalfDenominator(roundingHalfSum(a, Fixed<0>::one()));
  return rescale<0>(x - Fixed<2>::one());
}

}  // namespace nnremote::sim::fixed16
