// FarmHash's Fingerprint64, the 64-bit string fingerprint LSH_PROJECTION hashes its keys with.
// Its outputs are part of the CTS goldens, so the algorithm is reproduced bit for bit: a stable
// fingerprint (farmhash's "na" variant), independent of platform and CPU features.
#ifndef NNREMOTE_DRIVERS_SIM_KERNELS_FINGERPRINT64_H_
#define NNREMOTE_DRIVERS_SIM_KERNELS_FINGERPRINT64_H_

#include <cstddef>
#include <cstdint>

namespace nnremote::sim {

uint64_t fingerprint64(const uint8_t* bytes, size_t length);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_KERNELS_FINGERPRINT64_H_
