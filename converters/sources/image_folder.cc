#include "sources/image_folder.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <utility>

#include "h5feed/error.h"
#include "make_error.h"

namespace h5feed::converters {
namespace fs = std::filesystem;

bool HasImageExtension(std::string_view filename) {
  for (std::string_view extension : kImageExtensions) {
    if (filename.size() < extension.size()) continue;
    std::string_view tail = filename.substr(filename.size() - extension.size());
    bool equal = std::equal(tail.begin(), tail.end(), extension.begin(), [](char a, char b) {
      return std::tolower(static_cast<unsigned char>(a)) == b;
    });
    if (equal) return true;
  }
  return false;
}

namespace {

struct WalkedFolder {
  std::string path;  // relative to the image folder root
  std::vector<std::string> file_names;
};

// One level of os.walk(followlinks=True): the folder's non-folder entries, and its subfolders
// (symlinks to folders included) to descend into. `visited` holds (device, inode) pairs so a
// symlink loop is entered once, and a folder reached by several links is walked once (os.walk
// would list it under each name, and follow a loop until the path grows too long). Subfolders
// are descended in name order, so which name such a folder is listed under is the first in
// sorted order, whatever order the file system lists entries in.
void Walk(const fs::path& root, const std::string& relative,
          std::set<std::pair<dev_t, ino_t>>& visited, std::vector<WalkedFolder>& out) {
  fs::path folder = root / relative;
  struct stat info;
  if (stat(folder.c_str(), &info) != 0 || !visited.insert({info.st_dev, info.st_ino}).second)
    return;
  WalkedFolder walked{relative, {}};
  std::vector<std::string> subfolders;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
    std::string name = entry.path().filename().string();
    std::error_code type_ec;
    if (entry.is_directory(type_ec)) {
      subfolders.push_back(relative + "/" + name);
    } else {
      walked.file_names.push_back(std::move(name));
    }
  }
  if (ec) {
    throw MakeError(ErrorCode::kIo, "cannot list folder {}: {}", folder.string(), ec.message());
  }
  out.push_back(std::move(walked));
  std::sort(subfolders.begin(), subfolders.end());
  for (const std::string& subfolder : subfolders) Walk(root, subfolder, visited, out);
}

}  // namespace

ImageFolderListing ListImageFolder(const std::string& root, bool allow_empty,
                                   const OptionNames& names) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw MakeError(ErrorCode::kNotFound, "image folder {} does not exist or is not a folder",
                    root);
  }
  ImageFolderListing listing;
  listing.root = root;
  for (const fs::directory_entry& entry : fs::directory_iterator(root, ec)) {
    std::error_code type_ec;
    if (entry.is_directory(type_ec)) listing.classes.push_back(entry.path().filename().string());
  }
  if (ec) throw MakeError(ErrorCode::kIo, "cannot list folder {}: {}", root, ec.message());
  if (listing.classes.empty()) {
    throw MakeError(ErrorCode::kNotFound,
                    "no class folder in {}: an image folder holds one subfolder per class "
                    "(ROOT/<class>/<image>)",
                    root);
  }
  std::sort(listing.classes.begin(), listing.classes.end());

  std::vector<std::string> empty_classes;
  for (size_t label = 0; label < listing.classes.size(); ++label) {
    std::vector<WalkedFolder> folders;
    std::set<std::pair<dev_t, ino_t>> visited;
    Walk(root, listing.classes[label], visited, folders);
    // sorted(os.walk(...)) orders the walked folders by their path (code point order, which
    // byte order of UTF-8 preserves).
    std::sort(folders.begin(), folders.end(),
              [](const WalkedFolder& a, const WalkedFolder& b) { return a.path < b.path; });
    size_t before = listing.files.size();
    for (WalkedFolder& folder : folders) {
      std::sort(folder.file_names.begin(), folder.file_names.end());
      for (const std::string& name : folder.file_names) {
        if (HasImageExtension(name)) {
          listing.files.push_back({folder.path + "/" + name, static_cast<int64_t>(label)});
        }
      }
    }
    if (listing.files.size() == before) empty_classes.push_back(listing.classes[label]);
  }
  if (!empty_classes.empty() && !allow_empty) {
    std::string folders;
    for (const std::string& name : empty_classes) folders += (folders.empty() ? "" : ", ") + name;
    throw MakeError(
        ErrorCode::kInvalidArgument,
        "no image in class folder(s) {} under {} (extensions .jpg .jpeg .png .ppm .bmp .pgm .tif "
        ".tiff .webp); remove the folder(s), or pass {} to keep their labels with no image",
        folders, root, NameOption(names, "ConvertOptions", "allow_empty"));
  }
  return listing;
}

}  // namespace h5feed::converters
