#include <memory>

#include "capi_util.h"
#include "commands.h"

namespace plaidml_cli {

Result<Done> command_print(const std::string& program_path, const std::vector<DimSpec>& dims,
                           std::ostream& out) {
  auto program = load_program(program_path, dims);
  if (!program) return program.error();
  char* text = nullptr;
  if (plaidml_program_print(program->get(), &text) != PLAIDML_STATUS_OK) {
    return api_error(program_path + ": ");
  }
  std::unique_ptr<char, void (*)(char*)> owned(text, plaidml_string_destroy);
  out << text;
  if (*text && text[std::char_traits<char>::length(text) - 1] != '\n') out << "\n";
  return Done{};
}

}  // namespace plaidml_cli
