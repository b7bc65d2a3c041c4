#include "h5feed/option_names.h"

namespace h5feed {

std::string NameOption(const OptionNames& names, std::string_view owner, std::string_view path) {
  if (names) {
    std::string name = names(path);
    if (!name.empty()) return name;
  }
  return std::string(owner) + "." + std::string(path);
}

std::string NameMethod(const OptionNames& names, std::string_view owner, std::string_view method) {
  if (names) {
    std::string name = names(std::string(method) + "()");
    if (!name.empty()) return name;
  }
  return std::string(owner) + "::" + std::string(method);
}

}  // namespace h5feed
