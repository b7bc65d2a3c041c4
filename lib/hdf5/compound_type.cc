// CompoundType and MatchCompound (compound_type.h).

#include "hdf5/compound_type.h"

#include "h5feed/error.h"
#include "hdf5/error.h"
#include "hdf5/lock.h"
#include "make_error.h"

namespace h5feed::hdf5 {
namespace {

// The name of member `index` of compound type `type`; "" when HDF5 cannot say.
std::string MemberName(hid_t type, unsigned index) {
  char* name = H5Tget_member_name(type, index);
  if (name == nullptr) return {};
  std::string text = name;
  H5free_memory(name);  // allocated by HDF5's allocator, which may not be this program's malloc
  return text;
}

}  // namespace

Datatype CompoundType(size_t size, std::span<const CompoundMember> members) {
  auto lock = Lock();
  SilenceErrors silence;
  Datatype type(H5Tcreate(H5T_COMPOUND, size));
  bool ok = type.valid();
  for (const CompoundMember& member : members) {
    ok = ok && H5Tinsert(type.get(), member.name, member.offset, member.type) >= 0;
  }
  if (!ok) {
    throw MakeError(ErrorCode::kInternal, "HDF5 refused a compound type of {} bytes: {}", size,
                    ErrorStackText());
  }
  return type;
}

CompoundMatch MatchCompound(hid_t dataset, hid_t expected, const std::string& name) {
  auto lock = Lock();
  SilenceErrors silence;
  const Datatype stored(H5Dget_type(dataset));
  if (!stored) throw StackError(ReadFailureCode(), "reading the type of " + name, dataset);
  CompoundMatch match;
  match.is_compound = H5Tget_class(stored.get()) == H5T_COMPOUND;
  if (!match.is_compound) return match;
  const int members = H5Tget_nmembers(expected);
  for (int i = 0; i < members; ++i) {
    const std::string member = MemberName(expected, static_cast<unsigned>(i));
    if (H5Tget_member_index(stored.get(), member.c_str()) < 0) {
      match.missing_member = member;
      return match;
    }
  }
  match.equal = H5Tequal(stored.get(), expected) > 0;
  return match;
}

}  // namespace h5feed::hdf5
