// A C++ training loop on h5feed: the skeleton to start a trainer from. It links the installed
// library through find_package(h5feed) (examples/train/CMakeLists.txt, docs/install.md).
//
//   train FILE.h5 [--epochs N] [--batch B] [--checkpoint PATH] [--every K] [--stop-after S]
//
// Every K steps it checkpoints the loader's position (Loader::State) together with the model
// into PATH; started again with the same PATH, it resumes from there (Loader::Restore) and
// ends with the model an uninterrupted run ends with, because the batches that follow a
// restored state are exactly those the uninterrupted run saw. --stop-after S ends the run after
// S steps without checkpointing, as a job killed mid-epoch would.
//
// The model is a stand-in: one number pulled towards every batch's mean (normalized pixels
// and labels), so it depends on every batch and on their order. Put the real step there.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "h5feed/error.h"
#include "h5feed/loader.h"

namespace {

struct Arguments {
  std::string file;
  int64_t epochs = 2;
  int64_t batch_size = 64;
  std::string checkpoint;  // "" = no checkpoints
  int64_t every = 50;
  int64_t stop_after = -1;  // steps this run takes before it stops as if killed; -1 = never
};

// What a trainer saves: the model, the optimizer (none here) and where the loader stands.
struct Checkpoint {
  h5feed::LoaderState loader;
  double model = 0;
};

// Written beside PATH and renamed over it, so a job killed while saving keeps the previous one.
// Every field of the LoaderState is kept (a job resumed on another number of ranks needs its
// world_size and stretches); its order_key is text, so it has a line of its own.
void Save(const Checkpoint& checkpoint, const std::string& path) {
  const std::string temporary = path + ".tmp";
  {
    const h5feed::LoaderState& state = checkpoint.loader;
    std::ofstream out(temporary, std::ios::trunc);
    out << "h5feed-train-checkpoint 2\n"
        << state.epoch << ' ' << state.step << ' ' << state.seed << ' ' << state.fingerprint << ' '
        << state.world_size << ' ' << std::hexfloat << checkpoint.model  // hexfloat: exact
        << '\n'
        << state.stretches.size();
    for (const h5feed::EpochStretch& stretch : state.stretches) {
      out << ' ' << stretch.world_size << ' ' << stretch.steps;
    }
    out << '\n' << state.order_key << '\n';
    if (!out.flush()) throw std::runtime_error("cannot write checkpoint " + temporary);
  }
  std::filesystem::rename(temporary, path);
}

std::optional<Checkpoint> Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string magic, version, model;
  Checkpoint checkpoint;
  h5feed::LoaderState& state = checkpoint.loader;
  size_t stretches = 0;
  in >> magic >> version >> state.epoch >> state.step >> state.seed >> state.fingerprint >>
      state.world_size >> model >> stretches;
  for (size_t i = 0; in && i < stretches; ++i) {
    h5feed::EpochStretch stretch;
    in >> stretch.world_size >> stretch.steps;
    state.stretches.push_back(stretch);
  }
  in >> std::ws;
  std::getline(in, state.order_key);
  if (!in || magic != "h5feed-train-checkpoint" || version != "2") {
    throw std::runtime_error(path + " is not a checkpoint of this trainer");
  }
  checkpoint.model = std::strtod(model.c_str(), nullptr);  // reads hexfloat
  return checkpoint;
}

// The training step's stand-in: reads every value of the batch, returns a "loss".
double Step(const h5feed::Batch& batch, double& model) {
  double sum = 0;
  for (float value : batch.normalized_images()) sum += value;
  for (int64_t label : batch.labels()) sum += static_cast<double>(label);
  const double target = sum / static_cast<double>(batch.normalized_images().size());
  const double loss = (model - target) * (model - target);
  model += 0.1 * (target - model);
  return loss;
}

Arguments Parse(int argc, char** argv) {
  Arguments arguments;
  if (argc < 2)
    throw std::invalid_argument(
        "usage: train FILE.h5 [--epochs N] [--batch B] "
        "[--checkpoint PATH] [--every K] [--stop-after S]");
  arguments.file = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    const char* value = argv[i + 1];
    if (option == "--epochs")
      arguments.epochs = std::atoll(value);
    else if (option == "--batch")
      arguments.batch_size = std::atoll(value);
    else if (option == "--checkpoint")
      arguments.checkpoint = value;
    else if (option == "--every")
      arguments.every = std::atoll(value);
    else if (option == "--stop-after")
      arguments.stop_after = std::atoll(value);
    else
      throw std::invalid_argument("train: unknown option " + option);
  }
  return arguments;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Arguments arguments = Parse(argc, argv);
    h5feed::LoaderOptions options;
    options.batch_size = arguments.batch_size;
    options.sampler = h5feed::SamplerOptions::Parse("chunks:8");
    options.normalize = true;  // float32 NCHW, ImageNet mean and std
    options.seed = 1234;       // a resumed run must use the seed and options it was started with
    h5feed::Loader loader = h5feed::Loader::Open(arguments.file, options);
    std::printf("%lld images, %lld batches per epoch\n",
                static_cast<long long>(loader.dataset().samples),
                static_cast<long long>(loader.batches_per_epoch()));

    Checkpoint state;
    bool resumed = false;
    if (!arguments.checkpoint.empty()) {
      if (std::optional<Checkpoint> saved = Load(arguments.checkpoint)) {
        state = *saved;
        loader.Restore(state.loader);  // throws if the file or the options changed
        resumed = true;
        std::printf("resumed at epoch %lld step %lld\n", static_cast<long long>(state.loader.epoch),
                    static_cast<long long>(state.loader.step));
      }
    }

    int64_t steps_this_run = 0;
    for (int64_t epoch = state.loader.epoch; epoch < arguments.epochs; ++epoch) {
      if (!resumed || epoch != state.loader.epoch) loader.SetEpoch(epoch);
      while (std::optional<h5feed::Batch> batch = loader.Next()) {
        const double loss = Step(*batch, state.model);
        std::printf("epoch %lld step %lld loss %.9g\n", static_cast<long long>(epoch),
                    static_cast<long long>(batch->step()), loss);
        ++steps_this_run;
        if (steps_this_run == arguments.stop_after) {
          std::printf("stopped after %lld steps\n", static_cast<long long>(steps_this_run));
          return 0;
        }
        // State() is the position after the batch Next just returned.
        if (!arguments.checkpoint.empty() && (batch->step() + 1) % arguments.every == 0) {
          state.loader = loader.State();
          Save(state, arguments.checkpoint);
        }
      }
    }
    std::printf("model %.17g\n", state.model);
    return 0;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const h5feed::Error& e) {  // says what failed, where, and what to do
    std::fprintf(stderr, "train: %s: %s\n", std::string(h5feed::ToString(e.code())).c_str(),
                 e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train: %s\n", e.what());
    return 1;
  }
}
