#include "conversion_part.h"

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "h5feed/error.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using testing::CaughtError;

// An environment of the given variables only.
EnvironmentLookup Environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
}

std::string Message(const std::string& text, std::map<std::string, std::string> variables = {}) {
  return CaughtError([&] { ParseConversionPart(text, Environment(variables)); }).what();
}

TEST_CASE("the slices of N parts cover the stored order once, in order, within one of equal") {
  for (int64_t inputs : {1, 2, 7, 41, 1000, 1'281'167}) {
    for (int64_t count : {1, 2, 3, 7, 64}) {
      if (count > inputs) continue;
      int64_t next = 0;
      for (int64_t k = 0; k < count; ++k) {
        const auto [first, end] = PartSlice(inputs, {k, count});
        CHECK(first == next);
        CHECK(end - first >= inputs / count);
        CHECK(end - first <= inputs / count + 1);
        next = end;
      }
      CHECK(next == inputs);
    }
  }
  // floor(K x M / N) for an M whose products overflow 64 bits.
  const int64_t huge = int64_t{1} << 61;
  CHECK(PartSlice(huge, {5, 7}).first == 5 * (huge / 7) + (5 * (huge % 7)) / 7);
}

TEST_CASE("a part's file has -KKKKK-of-NNNNN before the output's suffix") {
  CHECK(PartPath("train.h5", {0, 3}) == "train-00000-of-00003.h5");
  CHECK(PartPath("/data/in21k.v2.h5", {12, 64}) == "/data/in21k.v2-00012-of-00064.h5");
  CHECK(PartPath("out/train", {1, 2}) == "out/train-00001-of-00002");
  CHECK(PartPath("my.dir/train", {1, 2}) == "my.dir/train-00001-of-00002");
  CHECK(PartPath(".h5", {1, 2}) == ".h5-00001-of-00002");
  CHECK(PartPath("train.h5", {0, 1}) == "train.h5");  // a whole conversion: the output itself
}

TEST_CASE("--part K/N is read, and anything else is refused saying what is accepted") {
  const ConversionPart part = ParseConversionPart("2/5", Environment({}));
  CHECK(part.index == 2);
  CHECK(part.count == 5);
  for (const char* bad : {"5/5", "-1/4", "1", "a/b", "1/0", "1/2/3", "1/100000", " 1/2"}) {
    CAPTURE(bad);
    // The command line's check names the flag itself ("--part: 5/5 is not ..."): the
    // message leads with the value alone.
    CHECK(Message(bad).rfind(std::string(bad) + " is ", 0) == 0);
  }
}

TEST_CASE("a part's file gives back the output it was named from, when it keeps its name") {
  CHECK(WholePath("out/train-00001-of-00003.h5", {1, 3}) == "out/train.h5");
  CHECK(WholePath("train-00002-of-00003", {2, 3}) == "train");
  CHECK(WholePath(PartPath("a.b/c.d.h5", {4, 9}), {4, 9}) == "a.b/c.d.h5");
  CHECK_FALSE(WholePath("renamed.h5", {1, 3}));
  CHECK_FALSE(WholePath("train-00001-of-00003.h5", {0, 3}));  // another part's tag
}

TEST_CASE("--part auto takes the first launcher's rank and size, mpirun's before srun's") {
  auto parse = [](std::map<std::string, std::string> variables) {
    return ParseConversionPart("auto", Environment(std::move(variables)));
  };
  CHECK(parse({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "3"}}).index == 2);
  CHECK(parse({{"RANK", "1"}, {"WORLD_SIZE", "4"}}).count == 4);
  CHECK(parse({{"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "8"}}).index == 7);
  // mpirun inside an sbatch script: every process inherits SLURM_PROCID=0.
  const ConversionPart inside = parse({{"SLURM_PROCID", "0"},
                                       {"SLURM_NTASKS", "1"},
                                       {"OMPI_COMM_WORLD_RANK", "1"},
                                       {"OMPI_COMM_WORLD_SIZE", "2"}});
  CHECK(inside.index == 1);
  CHECK(inside.count == 2);
}

TEST_CASE("--part auto without a launcher, or with one half set or inconsistent, is refused") {
  CHECK(Message("auto").find("none of OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE (mpirun), "
                             "RANK/WORLD_SIZE (torchrun), SLURM_PROCID/SLURM_NTASKS (srun)") !=
        std::string::npos);
  CHECK(Message("auto", {{"RANK", "0"}}).find("RANK=0 and WORLD_SIZE=(unset)") !=
        std::string::npos);
  CHECK(Message("auto", {{"RANK", "4"}, {"WORLD_SIZE", "4"}}).find("0 <= rank < size") !=
        std::string::npos);
  CHECK(Message("auto", {{"SLURM_PROCID", "x"}, {"SLURM_NTASKS", "2"}}).find("srun") !=
        std::string::npos);
}

}  // namespace
}  // namespace h5feed::converters
