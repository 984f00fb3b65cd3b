#include "unsupported.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace plaidml::conformance {

namespace {

std::string_view trim(std::string_view s) {
  const char* kSpace = " \t\r";
  size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(kSpace);
  return s.substr(b, e - b + 1);
}

// One non-blank line into the list.
Status add_line(std::string_view line, const std::string& where, UnsupportedList& list) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    return make_error(StatusCode::kParseError,
                      "{}: expected 'case_name: reason', got '{}' (no ':')", where, line);
  }
  std::string name(trim(line.substr(0, colon)));
  std::string reason(trim(line.substr(colon + 1)));
  if (name.empty() || reason.empty()) {
    return make_error(StatusCode::kParseError, "{}: {} is empty in '{}'", where,
                      name.empty() ? "the case name" : "the reason", line);
  }
  if (name == "*") {
    if (list.all_reason) {
      return make_error(StatusCode::kParseError, "{}: '*' is listed twice", where);
    }
    list.all_reason = reason;
    return Status::ok();
  }
  if (!list.cases.emplace(name, reason).second) {
    return make_error(StatusCode::kParseError, "{}: case '{}' is listed twice", where, name);
  }
  return Status::ok();
}

}  // namespace

Expected<UnsupportedList> parse_unsupported(std::string_view text, const std::string& file) {
  UnsupportedList list;
  int line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    Status s = add_line(line, file + ":" + std::to_string(line_no), list);
    if (!s.is_ok()) return s;
  }
  return list;
}

Expected<UnsupportedList> load_unsupported(const std::string& dir, const std::string& kind) {
  std::filesystem::path path = std::filesystem::path(dir) / (kind + ".txt");
  if (!std::filesystem::exists(path)) return UnsupportedList{};
  std::ifstream in(path);
  if (!in) return make_error(StatusCode::kIoError, "cannot read {}", path.string());
  std::stringstream text;
  text << in.rdbuf();
  return parse_unsupported(text.str(), path.string());
}

std::vector<std::string> listed_kinds(const std::string& dir) {
  std::vector<std::string> kinds;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".txt") kinds.push_back(entry.path().stem().string());
  }
  std::sort(kinds.begin(), kinds.end());
  return kinds;
}

std::vector<std::string> unknown_names(const UnsupportedList& list,
                                       const std::vector<std::string>& case_names) {
  std::set<std::string> known(case_names.begin(), case_names.end());
  std::vector<std::string> unknown;
  for (const auto& [name, reason] : list.cases) {
    if (!known.count(name)) unknown.push_back(name);
  }
  return unknown;
}

}  // namespace plaidml::conformance
