// Options the library parses (tools/parsed_option.h): an enum's word is read in any case into
// the value, a wrong one is a usage error listing the words, and --help shows the words and
// the default; any Parse checks its option's text the same way.
#include "parsed_option.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "h5feed/file_locking.h"
#include "h5feed/output_options.h"
#include "h5feed/sampler_options.h"

namespace h5feed::cli {
namespace {

// Parses `args` (after the program name) into a command with --file-locking and --layout.
struct Command {
  explicit Command(std::vector<std::string> args) {
    AddEnumOption(app, "--file-locking", locking, "the lock");
    AddEnumOption(app, "--layout", layout, "the layout");
    args.insert(args.begin(), "h5feed");
    std::vector<const char*> argv;
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    app.parse(static_cast<int>(argv.size()), argv.data());
  }

  CLI::App app;
  FileLocking locking = FileLocking::kAuto;
  Layout layout = Layout::kNHWC;
};

TEST_CASE("an enum option stores the value its word names, in any case") {
  CHECK(Command({"--file-locking", "off"}).locking == FileLocking::kOff);
  CHECK(Command({"--file-locking=ON"}).locking == FileLocking::kOn);
  CHECK(Command({"--layout", "nchw"}).layout == Layout::kNCHW);
  const Command defaults({});
  CHECK(defaults.locking == FileLocking::kAuto);
  CHECK(defaults.layout == Layout::kNHWC);
}

TEST_CASE("a word that is not one is a usage error listing every word") {
  try {
    Command({"--file-locking", "sometimes"});
    FAIL("parsed");
  } catch (const CLI::ValidationError& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(message.find("\"sometimes\"") != std::string::npos);
    CHECK(message.find("auto, on, off") != std::string::npos);
  }
}

TEST_CASE("help shows the words and the default word") {
  const Command command({});
  const std::string help = command.app.help();
  CAPTURE(help);
  CHECK(help.find("auto|on|off") != std::string::npos);
  CHECK(help.find("NCHW|NHWC") != std::string::npos);
  CHECK(help.find("=auto") != std::string::npos);
  CHECK(help.find("=NHWC") != std::string::npos);
}

TEST_CASE("a text the library's Parse refuses is a usage error with its message") {
  CLI::App app;
  std::string sampler = "chunks:8";
  app.add_option("--sampler", sampler)->check(ParsedBy(SamplerOptions::Parse, "SAMPLER"));
  const char* good[] = {"h5feed", "--sampler", "quasi:4"};
  app.parse(3, good);
  CHECK(sampler == "quasi:4");
  const char* bad[] = {"h5feed", "--sampler", "chunks:0"};
  CHECK_THROWS_WITH_AS(app.parse(3, bad), doctest::Contains("has window 0, below 1"),
                       CLI::ValidationError);
}

}  // namespace
}  // namespace h5feed::cli
