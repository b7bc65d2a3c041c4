#include "subcommand_choice.h"

#include <CLI/CLI.hpp>
#include <vector>

namespace h5feed::cli {
namespace {

// "h5feed convert imagefolder": how `command` is typed.
std::string PathOf(const CLI::App& command) {
  std::string path;
  for (const CLI::App* app = &command; app != nullptr; app = app->get_parent()) {
    path = app->get_name() + (path.empty() ? "" : " ") + path;
  }
  return path;
}

// The subcommand chosen last under `chosen` (`convert imagefolder` under the whole command),
// whose options are the ones a misplaced option may belong to.
const CLI::App& Deepest(const CLI::App& chosen) {
  const CLI::App* app = &chosen;
  while (!app->get_subcommands().empty()) app = app->get_subcommands().front();
  return *app;
}

}  // namespace

void RequireOneSubcommand(CLI::App& command, const std::string& kind, const std::string& hint) {
  // At most one still (the subcommands added before kept the maximum they copied); none is
  // this callback's to report, with the names.
  command.require_subcommand(0, 1);
  command.allow_extras();
  const CLI::App* self = &command;
  command.callback([self, kind, hint] {
    const std::vector<std::string> rest = self->remaining();
    const std::vector<CLI::App*> chosen = self->get_subcommands();
    if (rest.empty() && !chosen.empty()) return;
    std::string names;
    for (const CLI::App* subcommand : self->get_subcommands({})) {
      names += (names.empty() ? "" : ", ") + subcommand->get_name();
    }
    const std::string listed = "; " + kind + "s: " + names + hint;
    if (rest.empty()) throw CLI::ValidationError("give a " + kind + listed);
    const std::string& first = rest.front();
    if (first.size() < 2 || first[0] != '-') {
      throw CLI::ValidationError("unknown " + kind + " '" + first + "'" + listed);
    }
    const std::string option = first.substr(0, first.find('='));
    if (chosen.empty()) {
      throw CLI::ValidationError(option + " comes before the " + kind + ": give the " + kind +
                                 " first, then its options" + listed);
    }
    const CLI::App& leaf = Deepest(*chosen.front());
    if (leaf.get_option_no_throw(option) == nullptr) {
      throw CLI::ValidationError(option + " is not an option of " + PathOf(leaf));
    }
    throw CLI::ValidationError(option + " must follow the " + kind + ": " + PathOf(leaf) + " " +
                               option + " ...");
  });
}

}  // namespace h5feed::cli
