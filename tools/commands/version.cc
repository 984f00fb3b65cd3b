#include <plaidml/plaidml.h>

#include "commands.h"

namespace plaidml_cli {

Result<Done> command_version(std::ostream& out) {
  // Built-against and loaded versions can differ (a newer libplaidml.so.0): show both.
  out << "plaidml " << PLAIDML_VERSION_MAJOR << "." << PLAIDML_VERSION_MINOR << "."
      << PLAIDML_VERSION_PATCH << " (library " << plaidml_version() << ")\n";
  return Done{};
}

}  // namespace plaidml_cli
