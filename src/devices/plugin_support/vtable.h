// The C vtable of include/plaidml/plugin.h over a Driver (driver.h): what every device plugin
// shares. A module's entry point is one line:
//   extern "C" PLAIDML_PLUGIN_ENTRY const plaidml_plugin* plaidml_plugin_get_v1(void) {
//     return plaidml::devices::plugin_support::plugin_vtable(my_driver());
//   }
#pragma once

#include "devices/plugin_support/driver.h"
#include "plaidml/plugin.h"

// The visibility of a plugin module's one exported symbol (its version script hides the rest).
#define PLAIDML_PLUGIN_ENTRY extern "C" __attribute__((visibility("default")))

namespace plaidml::devices::plugin_support {

// The vtable that calls into `driver`, which must live as long as the module. A module has one
// driver: the first call fixes it.
const plaidml_plugin* plugin_vtable(Driver& driver);

}  // namespace plaidml::devices::plugin_support
