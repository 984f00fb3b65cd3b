// An Artifact (jit/codegen/artifact.h) as bytes, for the disk cache: the format string, each kernel's
// launch metadata, then the code. The disk cache checksums the bytes; decoding still checks
// every length, so a damaged payload is an error, never a crash or a wrong kernel table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "jit/codegen/artifact.h"

namespace plaidml::jit {

// The version of this encoding. It is part of every artifact key (jit/cache/artifact_key.h), so a
// new encoding never reads entries written in an old one.
inline constexpr uint32_t kArtifactCodecVersion = 1;

std::string encode_artifact(const Artifact& artifact);

// kIoError naming what is malformed ("kernel 2: truncated").
Expected<Artifact> decode_artifact(std::string_view payload);

}  // namespace plaidml::jit
