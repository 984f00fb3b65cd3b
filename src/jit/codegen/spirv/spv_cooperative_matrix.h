// SPV_KHR_cooperative_matrix's enumerants, from the SPIR-V registry: the spirv-headers of
// Debian 12 (1.3.239) predate the extension.
#pragma once

#include <cstdint>

#include <spirv/unified1/spirv.hpp11>

namespace plaidml::jit::spirv {

inline constexpr spv::Capability kCooperativeMatrixCapability = static_cast<spv::Capability>(6022);
inline constexpr spv::Op kOpTypeCooperativeMatrix = static_cast<spv::Op>(4456);
inline constexpr spv::Op kOpCooperativeMatrixLoad = static_cast<spv::Op>(4457);
inline constexpr spv::Op kOpCooperativeMatrixStore = static_cast<spv::Op>(4458);
inline constexpr spv::Op kOpCooperativeMatrixMulAdd = static_cast<spv::Op>(4459);

// Cooperative Matrix Use and Layout.
inline constexpr uint32_t kMatrixUseA = 0, kMatrixUseB = 1, kMatrixUseAccumulator = 2;
inline constexpr uint32_t kMatrixRowMajor = 0, kMatrixColumnMajor = 1;

}  // namespace plaidml::jit::spirv
