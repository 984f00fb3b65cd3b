#include "core/autodiff/gradient.h"

namespace plaidml::autodiff {

Expected<std::shared_ptr<const ir::Program>> gradient(const ir::Program& program,
                                                       const std::string& loss,
                                                       const std::vector<std::string>& wrt,
                                                       const std::vector<std::string>& grad_names) {
  (void)program, (void)loss, (void)wrt, (void)grad_names;
  return Status(StatusCode::kUnsupported, "gradient: not implemented yet");
}

}  // namespace plaidml::autodiff
