// The range driver (range_driver.h): HDF5 1.10's H5FD_class_t over io::RandomAccessFile,
// the way h5py's "fileobj" driver serves Python file objects.
#include "hdf5/range_driver.h"

#include "make_error.h"

#include <algorithm>
#include <cstring>
#include <list>
#include <map>
#include <vector>

namespace h5feed::hdf5 {
namespace {

thread_local std::optional<Error> driver_error;

// What H5Pset_driver stores in the property list (HDF5 copies it with CopyInfo).
struct DriverInfo {
  std::shared_ptr<const io::RandomAccessFile> file;
};

// Blocks kept per open file, least recently used dropped first: 16 MiB. HDF5's own metadata
// cache keeps the structures it parsed, so a block is rarely needed twice; this bounds what a
// walk over a whole chunk index (inspect, verify) leaves behind.
constexpr size_t kKeptBlocks = 64;

// What the driver keeps for one open file.
struct OpenState {
  std::shared_ptr<const io::RandomAccessFile> file;
  haddr_t end_of_allocation = 0;
  // Metadata read so far, by block number, with the use order (most recent first).
  std::map<uint64_t, std::pair<std::vector<uint8_t>, std::list<uint64_t>::iterator>> blocks;
  std::list<uint64_t> recency;
};

// HDF5 sees the first member; the layout must stay standard (a C struct and a pointer).
struct RangeFile {
  H5FD_t base;
  OpenState* state;
};

constexpr haddr_t kMaxAddress = (haddr_t{1} << 63) - 1;

void* CopyInfo(const void* info) { return new DriverInfo(*static_cast<const DriverInfo*>(info)); }

herr_t FreeInfo(void* info) {
  delete static_cast<DriverInfo*>(info);
  return 0;
}

H5FD_t* Open(const char* /*name*/, unsigned flags, hid_t access, haddr_t max_address) {
  if ((flags & (H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC)) != 0 || max_address == 0 ||
      max_address > kMaxAddress) {
    return nullptr;
  }
  const auto* info = static_cast<const DriverInfo*>(H5Pget_driver_info(access));
  if (info == nullptr || !info->file) return nullptr;
  auto* opened = static_cast<RangeFile*>(std::calloc(1, sizeof(RangeFile)));
  if (opened == nullptr) return nullptr;
  opened->state = new OpenState{info->file, 0, {}, {}};
  return &opened->base;
}

herr_t Close(H5FD_t* file) {
  auto* opened = reinterpret_cast<RangeFile*>(file);
  delete opened->state;
  std::free(opened);
  return 0;
}

haddr_t GetEndOfAllocation(const H5FD_t* file, H5FD_mem_t /*type*/) {
  return reinterpret_cast<const RangeFile*>(file)->state->end_of_allocation;
}

herr_t SetEndOfAllocation(H5FD_t* file, H5FD_mem_t /*type*/, haddr_t address) {
  reinterpret_cast<RangeFile*>(file)->state->end_of_allocation = address;
  return 0;
}

haddr_t GetEndOfFile(const H5FD_t* file, H5FD_mem_t /*type*/) {
  return reinterpret_cast<const RangeFile*>(file)->state->file->size();
}

// Block `number`, read whole (the last one up to the end of the file) on first use.
const std::vector<uint8_t>& Block(OpenState& state, uint64_t number) {
  auto found = state.blocks.find(number);
  if (found != state.blocks.end()) {
    state.recency.splice(state.recency.begin(), state.recency, found->second.second);
    return found->second.first;
  }
  const uint64_t start = number * kBlockBytes;
  std::vector<uint8_t> bytes(std::min(kBlockBytes, state.file->size() - start));
  state.file->ReadAt(start, bytes);
  if (state.blocks.size() >= kKeptBlocks) {
    state.blocks.erase(state.recency.back());
    state.recency.pop_back();
  }
  state.recency.push_front(number);
  return state.blocks.emplace(number, std::make_pair(std::move(bytes), state.recency.begin()))
      .first->second.first;
}

void ReadRange(OpenState& state, uint64_t address, std::span<uint8_t> dest) {
  if (dest.size() >= kBlockBytes) {
    state.file->ReadAt(address, dest);
    return;
  }
  size_t done = 0;
  while (done < dest.size()) {
    const uint64_t at = address + done;
    const std::vector<uint8_t>& block = Block(state, at / kBlockBytes);
    const size_t within = static_cast<size_t>(at % kBlockBytes);
    const size_t take = std::min(dest.size() - done, block.size() - within);
    std::memcpy(dest.data() + done, block.data() + within, take);
    done += take;
  }
}

herr_t Read(H5FD_t* file, H5FD_mem_t /*type*/, hid_t /*transfer*/, haddr_t address, size_t size,
            void* buffer) {
  OpenState& state = *reinterpret_cast<RangeFile*>(file)->state;
  auto* dest = static_cast<uint8_t*>(buffer);
  try {
    // Past the end HDF5 expects zeros (the sec2 driver's behaviour).
    const uint64_t end = state.file->size();
    const size_t present =
        address >= end ? 0 : static_cast<size_t>(std::min<uint64_t>(size, end - address));
    if (present > 0) ReadRange(state, address, std::span<uint8_t>(dest, present));
    std::memset(dest + present, 0, size - present);
    return 0;
  } catch (const Error& e) {
    driver_error = e;
  } catch (const std::bad_alloc&) {
    driver_error = MakeError(ErrorCode::kIo, "out of memory reading {}", state.file->path());
  }
  return -1;
}

herr_t Write(H5FD_t* /*file*/, H5FD_mem_t /*type*/, hid_t /*transfer*/, haddr_t /*address*/,
             size_t /*size*/, const void* /*buffer*/) {
  return -1;  // read-only
}

herr_t Query(const H5FD_t* /*file*/, unsigned long* flags) {
  *flags = 0;  // no aggregation (nothing is written), no sieve (the blocks do its work)
  return 0;
}

H5FD_class_t MakeClass() {
  H5FD_class_t driver{};
  driver.name = "h5feed_range";
  driver.maxaddr = kMaxAddress;
  driver.fc_degree = H5F_CLOSE_WEAK;
  driver.fapl_size = sizeof(DriverInfo);
  driver.fapl_copy = CopyInfo;
  driver.fapl_free = FreeInfo;
  driver.open = Open;
  driver.close = Close;
  driver.query = Query;
  driver.get_eoa = GetEndOfAllocation;
  driver.set_eoa = SetEndOfAllocation;
  driver.get_eof = GetEndOfFile;
  driver.read = Read;
  driver.write = Write;
  const H5FD_mem_t map[] = H5FD_FLMAP_DICHOTOMY;
  std::copy(std::begin(map), std::end(map), driver.fl_map);
  return driver;
}

hid_t DriverId() {
  static const H5FD_class_t driver = MakeClass();
  static const hid_t id = H5FDregister(&driver);
  return id;
}

}  // namespace

PropertyList RangeDriverAccess(std::shared_ptr<const io::RandomAccessFile> file) {
  PropertyList access(H5Pcreate(H5P_FILE_ACCESS));
  const hid_t driver = DriverId();
  DriverInfo info{std::move(file)};
  if (!access || driver < 0 || H5Pset_driver(access.get(), driver, &info) < 0) {
    throw Error(ErrorCode::kInternal, "HDF5 refused h5feed's range driver");
  }
  return access;
}

std::optional<Error> TakeDriverError() { return std::exchange(driver_error, std::nullopt); }

}  // namespace h5feed::hdf5
