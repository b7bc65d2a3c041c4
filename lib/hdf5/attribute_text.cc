// ReadAttributeText and ReadAllAttributesText (attribute_text.h).

#include "hdf5/attribute_text.h"

#include <cstdio>
#include <type_traits>

#include "hdf5/error.h"
#include "hdf5/handle.h"
#include "hdf5/strings.h"
#include "hdf5/type_names.h"

namespace h5feed::hdf5 {
namespace {

// Renders at most this many elements of an array attribute; the rest is counted.
constexpr hssize_t kMaxAttributeElements = 16;

// An attribute's values as text: one value alone, several as "[a, b, ...]".
template <typename T>
std::string Join(const std::vector<T>& values, hssize_t total) {
  auto render = [](const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      return v;
    } else {
      return std::to_string(v);
    }
  };
  if (total == 1 && values.size() == 1) return render(values[0]);
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + render(values[i]);
  if (total > static_cast<hssize_t>(values.size())) {
    text += ", ... (" + std::to_string(total) + " values)";
  }
  return text + "]";
}

std::string Render(hid_t attribute) {
  Datatype type(H5Aget_type(attribute));
  Dataspace space(H5Aget_space(attribute));
  if (!type || !space) return "<unreadable>";
  const hssize_t total = H5Sget_simple_extent_npoints(space.get());
  if (total <= 0) return "[]";
  if (total > kMaxAttributeElements) {
    return TypeName(type.get()) + " array of " + std::to_string(total) + " values";
  }
  const size_t n = static_cast<size_t>(total);
  switch (H5Tget_class(type.get())) {
    case H5T_INTEGER: {
      if (H5Tget_sign(type.get()) == H5T_SGN_NONE) {
        std::vector<uint64_t> values(n);
        if (H5Aread(attribute, H5T_NATIVE_UINT64, values.data()) < 0) return "<unreadable>";
        return Join(values, total);
      }
      std::vector<int64_t> values(n);
      if (H5Aread(attribute, H5T_NATIVE_INT64, values.data()) < 0) return "<unreadable>";
      return Join(values, total);
    }
    case H5T_FLOAT: {
      std::vector<double> values(n);
      if (H5Aread(attribute, H5T_NATIVE_DOUBLE, values.data()) < 0) return "<unreadable>";
      std::vector<std::string> texts;
      for (double v : values) {
        char buffer[32];
        std::snprintf(buffer, sizeof(buffer), "%.9g", v);
        texts.emplace_back(buffer);
      }
      return Join(texts, total);
    }
    case H5T_STRING: {
      std::vector<std::string> texts;
      const bool read = ReadStrings(
          type.get(), space.get(), texts,
          [&](hid_t memory, hid_t, void* out) { return H5Aread(attribute, memory, out); });
      return read ? Join(texts, total) : "<unreadable>";
    }
    default: return TypeName(type.get()) + " value";
  }
}

herr_t CollectAttribute(hid_t object, const char* name, const H5A_info_t*, void* data) {
  Attribute attribute(H5Aopen(object, name, H5P_DEFAULT));
  std::string value = attribute ? Render(attribute.get()) : "<unreadable>";
  static_cast<std::vector<AttributeText>*>(data)->push_back({name, std::move(value)});
  return 0;
}

}  // namespace

std::string ReadAttributeText(hid_t object, const char* name) {
  SilenceErrors silence;
  if (H5Aexists(object, name) <= 0) return "";
  Attribute attribute(H5Aopen(object, name, H5P_DEFAULT));
  return attribute ? Render(attribute.get()) : "";
}

std::vector<AttributeText> ReadAllAttributesText(hid_t object) {
  SilenceErrors silence;
  std::vector<AttributeText> attributes;
  H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, nullptr, CollectAttribute, &attributes);
  return attributes;
}

}  // namespace h5feed::hdf5
