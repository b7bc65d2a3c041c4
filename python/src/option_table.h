#pragma once
// OptionTable: the fields of a C++ options struct bound to the keys of a Python dict, one line
// per field, so that the module's side of an option is written once: its key, and the field it
// sets (reached through nested structs, or two fields given as one pair). The same line reads
// the field back, which gives Python the C++ defaults (h5feed/_options.py takes its defaults
// from there, so they live in the C++ headers only).
//
//   const OptionTable<LoaderOptions> table = {
//       {"seed", [](auto& o) -> auto& { return o.seed; }},
//       {"rank", [](auto& o) -> auto& { return o.shard.rank; }},
//       {"center_crop",
//        [](auto& o) { return std::tie(o.center_crop_height, o.center_crop_width); }},
//   };
//
// Values cross as Python sees them: enums as their words (lib/enum_names.h: "auto", "NHWC"),
// SamplerOptions as its spec ("chunks:8"), a CudaStreamView as its integer handle, a struct
// with a table of its own (OptionTableOf) as a dict, a vector of those as a list, the rest by
// pybind11's casts (ints, bools, strings, pairs, std::array). A table is immutable after
// construction and may be read from any thread holding the GIL.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "enum_names.h"
#include "h5feed/cuda_stream_view.h"
#include "h5feed/error.h"
#include "h5feed/sampler_options.h"

namespace h5feed::python {

template <typename Options>
class OptionTable;

// The table of a struct that crosses as a dict (a field of that type, or a list of them):
// specialize with `static const OptionTable<T>& Get();`.
template <typename T>
struct OptionTableOf;

template <typename T, typename = void>
constexpr bool kHasOptionTable = false;
template <typename T>
constexpr bool kHasOptionTable<T, std::void_t<decltype(OptionTableOf<T>::Get())>> = true;

// A list of such structs (AugmentOptions of output.views).
template <typename T>
constexpr bool kIsListOfTabled = false;
template <typename T>
constexpr bool kIsListOfTabled<std::vector<T>> = kHasOptionTable<T>;

// A field's value as Python sees it.
template <typename T>
pybind11::object ToPython(const T& value) {
  if constexpr (std::is_enum_v<T>) {
    return pybind11::str(std::string(NameOf(value)));
  } else if constexpr (std::is_same_v<T, SamplerOptions>) {
    return pybind11::str(value.ToString());
  } else if constexpr (std::is_same_v<T, CudaStreamView>) {
    return pybind11::int_(value.handle());
  } else if constexpr (kHasOptionTable<T>) {
    return OptionTableOf<T>::Get().ToDict(value);
  } else if constexpr (kIsListOfTabled<T>) {
    pybind11::list items;
    for (const auto& item : value) items.append(ToPython(item));
    return items;
  } else {
    return pybind11::cast(value);
  }
}

template <typename... T>
pybind11::object ToPython(const std::tuple<T&...>& fields) {  // fields given as one tuple
  return std::apply([](const auto&... field) { return pybind11::make_tuple(field...); }, fields);
}

// Sets `field` from its Python value. Throws pybind11::cast_error for a value of another kind,
// Error(kInvalidArgument) for a word or spec the field's Parse refuses.
template <typename T>
void Assign(pybind11::handle value, T& field) {
  if constexpr (std::is_enum_v<T>) {
    field = ParseName<T>(value.cast<std::string>());
  } else if constexpr (std::is_same_v<T, SamplerOptions>) {
    field = SamplerOptions::Parse(value.cast<std::string>());
  } else if constexpr (std::is_same_v<T, CudaStreamView>) {
    field = CudaStreamView::FromHandle(value.cast<uintptr_t>());
  } else if constexpr (kHasOptionTable<T>) {
    field = OptionTableOf<T>::Get().FromDict(value.cast<pybind11::dict>());
  } else if constexpr (kIsListOfTabled<T>) {
    T items;
    for (pybind11::handle item : value.cast<pybind11::list>()) {
      Assign(item, items.emplace_back());
    }
    field = std::move(items);
  } else {
    field = value.cast<T>();
  }
}

template <typename... T>
void Assign(pybind11::handle value, std::tuple<T&...> fields) {
  fields = value.cast<std::tuple<std::remove_cv_t<T>...>>();
}

// What a field of type T takes, in Python's words, for the message of a value it cannot
// take ("an int from 0 to 18446744073709551615"); "" for a field of several values or a
// struct, whose message shows its default instead.
template <typename T>
std::string ValueWords() {
  if constexpr (std::is_same_v<T, bool>) {
    return "True or False";
  } else if constexpr (std::is_integral_v<T>) {
    return "an int from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
           std::to_string(std::numeric_limits<T>::max());
  } else if constexpr (std::is_floating_point_v<T>) {
    return "a number";
  } else if constexpr (std::is_same_v<T, std::string> || std::is_enum_v<T> ||
                       std::is_same_v<T, SamplerOptions>) {
    return "a str";
  } else {
    return "";
  }
}

template <typename Options>
struct OptionField {
  // `access(options)` returns the field (a reference) or the fields (std::tie) of `key`; it is
  // called with Options& and const Options&. `field_path` is the field as the library's
  // messages name it (option_names.h: "shard.rank"); the key when the two are the same.
  template <typename Access>
  OptionField(std::string field_key, Access access) : OptionField(field_key, field_key, access) {}
  template <typename Access>
  OptionField(std::string field_key, std::string field_path, Access access)
      : key(std::move(field_key)),
        path(std::move(field_path)),
        set([access](Options& options, pybind11::handle value) { Assign(value, access(options)); }),
        get([access](const Options& options) { return ToPython(access(options)); }),
        words(&ValueWords<std::remove_cvref_t<decltype(access(std::declval<Options&>()))>>),
        integral(
            std::is_integral_v<std::remove_cvref_t<decltype(access(std::declval<Options&>()))>> &&
            !std::is_same_v<std::remove_cvref_t<decltype(access(std::declval<Options&>()))>,
                            bool>) {}

  std::string key;
  std::string path;
  std::function<void(Options&, pybind11::handle)> set;
  std::function<pybind11::object(const Options&)> get;
  std::string (*words)();  // ValueWords of the field's type
  bool integral;           // an integer field (not a bool)
};

template <typename Options>
class OptionTable {
 public:
  OptionTable(std::initializer_list<OptionField<Options>> fields) : fields_(fields) {}

  // Options with the fields `values` names set, the others at their defaults. Throws
  // pybind11::type_error for a key the table lacks or a value of the wrong kind, and
  // pybind11::value_error for an int outside its field's range (each naming the argument,
  // by `names` where it has the key: the Python argument that sets it, the value and what it
  // takes), Error(kInvalidArgument) for a word or spec refused.
  Options FromDict(const pybind11::dict& values,
                   const std::map<std::string, std::string, std::less<>>& names = {}) const {
    for (const auto& item : values) {
      const std::string key = pybind11::str(item.first);
      if (Find(key) == nullptr) {
        throw pybind11::type_error("unexpected option '" + key + "' (the options are " + Keys() +
                                   ")");
      }
    }
    Options options;
    for (const OptionField<Options>& field : fields_) {
      if (!values.contains(field.key)) continue;
      const pybind11::object value = values[pybind11::str(field.key)];
      const auto named = names.find(field.key);
      const std::string name = named == names.end() ? field.key : named->second;
      // Python's bool is an int, which pybind11 casts to one: batch_size=True would be 1.
      if (field.integral && pybind11::isinstance<pybind11::bool_>(value)) {
        const std::string words = field.words();
        throw pybind11::type_error(name + "=" + Repr(value) + ": " + name + " takes " +
                                   words.substr(0, words.find(" from ")) + ", not a bool");
      }
      try {
        field.set(options, value);
      } catch (const pybind11::cast_error&) {
        const std::string words = field.words();
        if (words.empty()) {
          throw pybind11::type_error(name + "=" + Repr(value) + ": " + name +
                                     " takes a value like its default, " +
                                     Repr(field.get(Options{})));
        }
        // An int the field cannot hold (pybind11 refuses it as a cast, as it does a str).
        if (field.integral && pybind11::isinstance<pybind11::int_>(value) &&
            !pybind11::isinstance<pybind11::bool_>(value)) {
          throw pybind11::value_error(name + "=" + Repr(value) + " is out of range: " + name +
                                      " takes " + words);
        }
        // The kind alone ("an int"): the range is about values of that kind.
        throw pybind11::type_error(name + "=" + Repr(value) + ": " + name + " takes " +
                                   words.substr(0, words.find(" from ")) + ", not " +
                                   Article(value));
      }
    }
    return options;
  }

  // The key of the field at `path` (option_names.h), or of the nearest field holding it
  // ("sampler" for "sampler.window"), with the rest of the path; nullptr when none.
  const OptionField<Options>* FindByPath(std::string_view path, std::string_view& rest) const {
    for (std::string_view prefix = path;;) {
      for (const OptionField<Options>& field : fields_) {
        if (field.path == prefix) {
          rest = path.substr(prefix.size());
          if (!rest.empty()) rest.remove_prefix(1);  // the '.'
          return &field;
        }
      }
      const size_t dot = prefix.rfind('.');
      if (dot == std::string_view::npos) return nullptr;
      prefix = prefix.substr(0, dot);
    }
  }

  // Every field of `options` by its key (with Options{}: the C++ defaults).
  pybind11::dict ToDict(const Options& options) const {
    pybind11::dict values;
    for (const OptionField<Options>& field : fields_) {
      values[field.key.c_str()] = field.get(options);
    }
    return values;
  }

 private:
  const OptionField<Options>* Find(const std::string& key) const {
    for (const OptionField<Options>& field : fields_) {
      if (field.key == key) return &field;
    }
    return nullptr;
  }

  std::string Keys() const {
    std::string keys;
    for (const OptionField<Options>& field : fields_) {
      keys += (keys.empty() ? "" : ", ") + field.key;
    }
    return keys;
  }

  static std::string Repr(pybind11::handle value) {
    return pybind11::repr(value).cast<std::string>();
  }

  // "a str", "an int": the kind of `value`, by its Python type's name.
  static std::string Article(pybind11::handle value) {
    const std::string type = pybind11::str(pybind11::type::handle_of(value).attr("__name__"));
    return (std::string_view("aeiou").find(type.front()) == std::string_view::npos ? "a " : "an ") +
           type;
  }

  std::vector<OptionField<Options>> fields_;
};

}  // namespace h5feed::python
