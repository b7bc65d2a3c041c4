#include "sources/segmentation_pairs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include <sys/stat.h>

#include "h5feed/error.h"
#include "make_error.h"
#include "sources/image_folder.h"

namespace h5feed::converters {
namespace {

namespace fs = std::filesystem;

bool EndsWithPng(const std::string& name) {
  if (name.size() < 4) return false;
  std::string tail = name.substr(name.size() - 4);
  std::transform(tail.begin(), tail.end(), tail.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return tail == ".png";
}

// The files under `root` that `keep` accepts, relative and '/'-separated, sorted.
template <typename Keep>
std::vector<std::string> ListFiles(const std::string& root, const char* what, Keep keep) {
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    throw MakeError(ErrorCode::kNotFound, "the {} folder {} does not exist or is not a folder",
                    what, root);
  }
  std::vector<std::string> files;
  // Folders by (device, inode): a symlink loop (a link to "." or "..") is entered once, not
  // until the path is too long, listing every file under each of its names.
  std::set<std::pair<dev_t, ino_t>> visited;
  const auto enter = [&visited](const fs::path& folder) {
    struct stat info;
    return ::stat(folder.c_str(), &info) == 0 && visited.insert({info.st_dev, info.st_ino}).second;
  };
  enter(root);
  const auto options = fs::directory_options::follow_directory_symlink;
  for (auto it = fs::recursive_directory_iterator(root, options, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_directory(error)) {
      if (!enter(it->path())) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(error)) continue;
    // Lexically: fs::relative resolves symlinks, and a linked subfolder (sub -> /data/voc)
    // gave "../../data/voc/x.jpg", a key no mask has.
    if (keep(it->path().filename().string())) {
      files.push_back(it->path().lexically_relative(root).generic_string());
    }
  }
  if (error) {
    throw MakeError(ErrorCode::kIo, "cannot list the {} folder {}: {}", what, root,
                    error.message());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The lines of `path`, trimmed, blank ones left out, without the UTF-8 byte order mark that
// Windows editors put before the first (an invisible part of its key otherwise).
std::set<std::string> ReadKeys(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw MakeError(ErrorCode::kNotFound, "cannot read the image list {}", path);
  std::set<std::string> keys;
  bool first = true;
  for (std::string line; std::getline(in, line); first = false) {
    if (first && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    const size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    keys.insert(line.substr(begin, line.find_last_not_of(" \t\r") + 1 - begin));
  }
  return keys;
}

// Whether the file `relative_path`'s key drops `suffix` (PairKey).
bool HasSuffix(const std::string& relative_path, const std::string& suffix) {
  return !suffix.empty() && PairKey(relative_path, suffix) != PairKey(relative_path, "");
}

}  // namespace

void KeepListed(SegmentationListing& listing, const std::string& list_path) {
  std::set<std::string> missing = ReadKeys(list_path);
  if (missing.empty()) {
    throw MakeError(ErrorCode::kInvalidArgument, "the image list {} names no image", list_path);
  }
  const std::set<std::string> keys = missing;
  std::vector<SegmentationPair> kept;
  for (SegmentationPair& pair : listing.pairs) {
    if (keys.count(pair.key) == 0) continue;
    missing.erase(pair.key);
    kept.push_back(std::move(pair));
  }
  if (!missing.empty()) {
    // A line names an image by its key: in a folder of subfolders (Cityscapes' cities) that
    // is its path, which the example key shows.
    throw MakeError(ErrorCode::kInvalidArgument,
                    "the image list {} names {} image(s) that {} does not hold, e.g. \"{}\" (a "
                    "line is an image's path under the folder without its extension{}, such as "
                    "\"{}\"); give the list of this folder's split",
                    list_path, missing.size(), listing.images_root, *missing.begin(),
                    listing.image_suffix.empty() ? "" : " and " + listing.image_suffix,
                    listing.pairs.empty() ? "" : listing.pairs.front().key);
  }
  listing.pairs = std::move(kept);
  listing.masks_without_image = 0;
  listing.mask_without_image.clear();
}

std::string PairKey(const std::string& relative_path, const std::string& suffix) {
  const size_t slash = relative_path.rfind('/');
  const size_t dot = relative_path.rfind('.');
  std::string key = dot != std::string::npos && (slash == std::string::npos || dot > slash)
                        ? relative_path.substr(0, dot)
                        : relative_path;
  const size_t stem_begin = slash == std::string::npos ? 0 : slash + 1;
  if (!suffix.empty() && key.size() > stem_begin + suffix.size() &&
      key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
    key.resize(key.size() - suffix.size());
  }
  return key;
}

SegmentationListing ListSegmentationPairs(const std::string& images_root,
                                          const std::string& masks_root,
                                          const std::string& image_suffix,
                                          const std::string& mask_suffix,
                                          const OptionNames& names) {
  const std::vector<std::string> images =
      ListFiles(images_root, "images", [](const std::string& n) { return HasImageExtension(n); });
  const std::vector<std::string> masks = ListFiles(masks_root, "masks", EndsWithPng);
  if (images.empty()) {
    throw MakeError(ErrorCode::kNotFound,
                    "no image in {} (extensions .jpg .jpeg .png .ppm .bmp "
                    ".pgm .tif .tiff .webp)",
                    images_root);
  }
  if (masks.empty()) throw MakeError(ErrorCode::kNotFound, "no .png mask in {}", masks_root);
  // Two masks of one key differ by the suffix (a.png and a_mask.png): the one that carries it
  // is the mask; the other is an image where the images share the masks' folder.
  std::map<std::string, std::string> mask_of;  // key -> mask path
  for (const std::string& mask : masks) {
    auto [found, added] = mask_of.emplace(PairKey(mask, mask_suffix), mask);
    if (!added && !HasSuffix(found->second, mask_suffix)) found->second = mask;
  }
  std::set<std::string> mask_files;  // the masks' paths where they are among the images
  std::error_code error;
  if (fs::equivalent(images_root, masks_root, error)) {
    for (const auto& [key, mask] : mask_of) mask_files.insert(mask);
  }
  SegmentationListing listing{images_root, masks_root, image_suffix, mask_suffix, {}, 0, {}};
  std::map<std::string, bool> paired;
  for (const std::string& image : images) {
    if (mask_files.count(image) != 0) continue;
    std::string key = PairKey(image, image_suffix);
    const auto found = mask_of.find(key);
    listing.pairs.push_back(
        {image, found != mask_of.end() ? found->second : std::string(), std::move(key)});
    if (found != mask_of.end()) paired[found->first] = true;
  }
  if (paired.empty()) {
    throw MakeError(ErrorCode::kInvalidArgument,
                    "no image in {} pairs with a mask in {}: image {} looked for the mask key "
                    "\"{}\", and the first mask, {}, has the key \"{}\"; check the folders, "
                    "and give {} / {} where the names differ by one",
                    images_root, masks_root, images.front(), PairKey(images.front(), image_suffix),
                    masks.front(), PairKey(masks.front(), mask_suffix),
                    NameOption(names, "SegmentationOptions", "image_suffix"),
                    NameOption(names, "SegmentationOptions", "mask_suffix"));
  }
  for (const auto& [key, mask] : mask_of) {
    if (paired.count(key) != 0) continue;
    if (listing.masks_without_image++ == 0) listing.mask_without_image = mask;
  }
  return listing;
}

}  // namespace h5feed::converters
