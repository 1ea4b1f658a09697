// The 16-bit fixed-point logistic and tanh behind the quantized LSTMs: hand-checkable values,
// symmetry, and closeness to the real functions over each input format's whole range.
#include "drivers/sim/kernels/fixed_point16.h"

#include <cmath>

#include <gtest/gtest.h>

namespace nnremote::sim::fixed16 {
namespace {

double value(Fixed<0> f) { return f.raw / 32768.0; }

TEST(FixedPoint16Test, ArithmeticRoundsLikeGemmlowp) {
  // 0.5 * 0.5 = 0.25 exactly; -1 * -1 saturates to the largest value below 1.
  EXPECT_EQ((Fixed<0>{16384} * Fixed<0>{16384}).raw, 8192);
  EXPECT_EQ((Fixed<0>{INT16_MIN} * Fixed<0>{INT16_MIN}).raw, INT16_MAX);
  // Division by a power of two rounds half away from zero.
  EXPECT_EQ(roundingDivideByPowerOfTwo(5, 1), 3);
  EXPECT_EQ(roundingDivideByPowerOfTwo(-5, 1), -3);
  EXPECT_EQ(roundingDivideByPowerOfTwo(-4, 1), -2);
  // Going to fewer integer bits saturates; going to more rounds.
  EXPECT_EQ(rescale<0>(Fixed<3>{4096}).raw, INT16_MAX);  // 1.0 does not fit Q0.15
  EXPECT_EQ(rescale<4>(Fixed<0>{3}).raw, 0);             // 3 / 16 rounds to 0
  EXPECT_EQ(rescale<4>(Fixed<0>{8}).raw, 1);             // 8 / 16 rounds half up to 1
  EXPECT_EQ(saturatingAdd(Fixed<4>{30000}, Fixed<4>{30000}).raw, INT16_MAX);
}

TEST(FixedPoint16Test, KnownValues) {
  EXPECT_EQ(logistic(Fixed<3>{0}).raw, 16384);  // exactly 1/2
  EXPECT_EQ(tanh(Fixed<3>{0}).raw, 0);
  // Within the approximations' error (see below) of logistic(1) and tanh(1).
  EXPECT_NEAR(value(logistic(Fixed<3>{4096})), 1.0 / (1.0 + std::exp(-1.0)), 8.0 / 32768);
  EXPECT_NEAR(value(tanh(Fixed<3>{4096})), std::tanh(1.0), 16.0 / 32768);
}

template <int I>
void expectCloseOverWholeRange() {
  double worstLogistic = 0, worstTanh = 0;
  for (int32_t raw = INT16_MIN + 1; raw <= INT16_MAX; ++raw) {
    const double x = std::ldexp(double(raw), -(15 - I));
    const Fixed<I> in{int16_t(raw)};
    worstLogistic = std::max(worstLogistic, std::abs(value(logistic(in)) - 1.0 / (1.0 + std::exp(-x))));
    worstTanh = std::max(worstTanh, std::abs(value(tanh(in)) - std::tanh(x)));
    // tanh is odd and logistic(-x) = 1 - logistic(x), to within one unit.
    const Fixed<I> negated{int16_t(-raw)};
    ASSERT_NEAR(tanh(negated).raw, -tanh(in).raw, 1) << raw;
    ASSERT_NEAR(logistic(negated).raw, 32767 - logistic(in).raw, 1) << raw;
  }
  // gemmlowp's 16-bit approximations are good to about 6 (logistic) and 12 (tanh) units of
  // Q0.15; far outside that means a broken step, not rounding.
  EXPECT_LT(worstLogistic, 8.0 / 32768) << I << " integer bits";
  EXPECT_LT(worstTanh, 16.0 / 32768) << I << " integer bits";
}

TEST(FixedPoint16Test, CloseToTheRealFunctionsForEveryInputFormat) {
  expectCloseOverWholeRange<0>();
  expectCloseOverWholeRange<3>();
  expectCloseOverWholeRange<4>();
  expectCloseOverWholeRange<6>();
}

}  // namespace
}  // namespace nnremote::sim::fixed16
