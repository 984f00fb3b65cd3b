#include <algorithm>
#include <iomanip>
#include <vector>

#include "capi_util.h"
#include "commands.h"

namespace plaidml_cli {

namespace {

struct DeviceRow {
  std::string id;
  std::string name;
  std::string status;
};

Result<std::vector<DeviceRow>> list_devices(const plaidml_context* context) {
  size_t count = 0;
  if (plaidml_device_count(context, &count) != PLAIDML_STATUS_OK) return api_error("devices: ");
  const char* selected = "";
  if (plaidml_context_device(context, &selected) != PLAIDML_STATUS_OK) selected = "";
  std::vector<DeviceRow> rows;
  for (size_t i = 0; i < count; ++i) {
    const char* id = nullptr;
    const char* name = nullptr;
    bool available = false;
    const char* reason = nullptr;
    if (plaidml_device_id(context, i, &id) != PLAIDML_STATUS_OK ||
        plaidml_device_name(context, i, &name) != PLAIDML_STATUS_OK ||
        plaidml_device_available(context, i, &available, &reason) != PLAIDML_STATUS_OK) {
      return api_error("devices: ");
    }
    std::string status = available ? "available" : std::string("unavailable: ") + reason;
    if (std::string(id) == selected) status += " (default)";
    rows.push_back({id, name, status});
  }
  return rows;
}

}  // namespace

Result<Done> command_devices(std::ostream& out, std::ostream& err) {
  auto context = create_context({});
  if (!context) {
    // PLAIDML_DEVICE may name a device that is not there; the list is what the user needs then.
    err << "plaidml: warning: " << context.error().message << "\n";
    context = create_context({"cpu:0", 0});
    if (!context) return context.error();
  }
  auto rows = list_devices(context->get());
  if (!rows) return rows.error();
  size_t id_width = 2;
  size_t name_width = 4;
  for (const auto& r : *rows) {
    id_width = std::max(id_width, r.id.size());
    name_width = std::max(name_width, r.name.size());
  }
  out << std::left << std::setw(static_cast<int>(id_width + 2)) << "ID"
      << std::setw(static_cast<int>(name_width + 2)) << "NAME"
      << "STATUS\n";
  for (const auto& r : *rows) {
    out << std::setw(static_cast<int>(id_width + 2)) << r.id
        << std::setw(static_cast<int>(name_width + 2)) << r.name << r.status << "\n";
  }
  return Done{};
}

}  // namespace plaidml_cli
