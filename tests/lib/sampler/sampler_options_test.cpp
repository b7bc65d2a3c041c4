#include "h5feed/sampler_options.h"

#include <doctest/doctest.h>

#include <string>

#include "enum_names.h"
#include "h5feed/error.h"

namespace h5feed {
namespace {

using Kind = SamplerOptions::Kind;

TEST_CASE("default options are chunks:8 on a single rank that pads") {
  SamplerOptions sampler;
  CHECK(sampler.kind == Kind::kChunks);
  CHECK(sampler.window == 8);
  CHECK(sampler.ToString() == "chunks:8");
  ShardOptions shard;
  CHECK(shard.rank == 0);
  CHECK(shard.world_size == 1);
  CHECK_FALSE(shard.drop_last);
}

TEST_CASE("every accepted form parses to its kind and window") {
  CHECK(SamplerOptions::Parse("sequential") == SamplerOptions{Kind::kSequential, 8});
  CHECK(SamplerOptions::Parse("random") == SamplerOptions{Kind::kRandom, 8});
  CHECK(SamplerOptions::Parse("chunks") == SamplerOptions{Kind::kChunks, 8});
  CHECK(SamplerOptions::Parse("chunks:1") == SamplerOptions{Kind::kChunks, 1});
  CHECK(SamplerOptions::Parse("chunks:32") == SamplerOptions{Kind::kChunks, 32});
  CHECK(SamplerOptions::Parse("quasi") == SamplerOptions{Kind::kQuasi, 8});
  CHECK(SamplerOptions::Parse("quasi:5") == SamplerOptions{Kind::kQuasi, 5});
  CHECK(SamplerOptions::Parse("Chunks:4") == SamplerOptions{Kind::kChunks, 4});
  CHECK(SamplerOptions::Parse("RANDOM") == SamplerOptions{Kind::kRandom, 8});
}

TEST_CASE("ToString is the inverse of Parse") {
  for (const char* text : {"sequential", "random", "chunks:8", "chunks:1", "quasi:8", "quasi:64"}) {
    CHECK(SamplerOptions::Parse(text).ToString() == text);
  }
  for (SamplerOptions options : {SamplerOptions{Kind::kChunks, 3}, SamplerOptions{Kind::kQuasi, 12},
                                 SamplerOptions{Kind::kRandom, 8}}) {
    CHECK(SamplerOptions::Parse(options.ToString()) == options);
  }
}

TEST_CASE("a malformed sampler is an invalid-argument error naming the accepted forms") {
  for (const char* text : {"", "shuffle", "chunk", "chunks:", "chunks:0", "chunks:-2", "chunks:x",
                           "chunks:8x", "chunks: 8", " chunks", "quasi:0", "random:4",
                           "sequential:1", "chunks:99999999999999999999", "chunks:4:2"}) {
    INFO(text);
    try {
      SamplerOptions::Parse(text);
      FAIL("parsed");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kInvalidArgument);
      const std::string message = e.what();
      CHECK(message.find("\"" + std::string(text) + "\"") != std::string::npos);
      CHECK(message.find("sequential, random, chunks, chunks:W, quasi, quasi:W") !=
            std::string::npos);
    }
  }
}

TEST_CASE("each kind's word in the table (enum_names.h) parses to it and leads its ToString") {
  for (const NamedValue<Kind>& entry : EnumNames<Kind>::names) {
    CAPTURE(entry.name);
    CHECK(SamplerOptions::Parse(entry.name).kind == entry.value);
    CHECK(SamplerOptions::Parse(entry.name).ToString().find(entry.name) == 0);
  }
}

}  // namespace
}  // namespace h5feed
