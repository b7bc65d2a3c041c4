#pragma once
// The words of h5feed's enums: one table per enum, the only place each word is spelled. The
// public ToString / Parse functions (h5feed/error.h, file_locking.h, loader_options.h,
// output_options.h), SamplerOptions::Parse and Compression::Parse for their kinds, the
// command line's options (tools/parsed_option.h) and the Python module's arguments all go
// through these tables, so a word means the same everywhere and a refusal lists every word
// accepted.
//
// A table is an EnumNames<Enum> specialization: `what` names the setting in messages, `names`
// pairs each value with its word. The first word of a value is its ToString; a later one is
// a synonym Parse also accepts. Parse ignores ASCII case. The converters' enums (image resize
// modes, the CIFAR split and labels) have their tables beside their declarations.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "h5feed/compression.h"
#include "h5feed/error.h"
#include "h5feed/field.h"
#include "h5feed/file_locking.h"
#include "h5feed/loader_options.h"
#include "h5feed/output_options.h"
#include "h5feed/sampler_options.h"
#include "h5feed/stored_layout.h"

namespace h5feed {

template <typename Enum>
struct NamedValue {
  Enum value;
  std::string_view name;
};

template <typename Enum>
struct EnumNames;  // specialized for each enum that has words

template <>
struct EnumNames<ErrorCode> {
  static constexpr std::string_view what = "error code";
  static constexpr NamedValue<ErrorCode> names[] = {
      {ErrorCode::kInvalidArgument, "invalid argument"},
      {ErrorCode::kNotFound, "not found"},
      {ErrorCode::kAlreadyExists, "already exists"},
      {ErrorCode::kIo, "I/O error"},
      {ErrorCode::kNoSpace, "no space left"},
      {ErrorCode::kCorrupt, "corrupt data"},
      {ErrorCode::kUnsupported, "unsupported"},
      {ErrorCode::kCancelled, "cancelled"},
      {ErrorCode::kCuda, "CUDA error"},
      {ErrorCode::kInternal, "internal error"},
  };
};

template <>
struct EnumNames<FileLocking> {
  static constexpr std::string_view what = "file locking";
  static constexpr NamedValue<FileLocking> names[] = {
      {FileLocking::kAuto, "auto"}, {FileLocking::kOn, "on"}, {FileLocking::kOff, "off"}};
};

template <>
struct EnumNames<EvictionPolicy> {
  static constexpr std::string_view what = "eviction policy";
  static constexpr NamedValue<EvictionPolicy> names[] = {{EvictionPolicy::kBelady, "belady"},
                                                         {EvictionPolicy::kLru, "lru"}};
};

template <>
struct EnumNames<ElementType> {
  static constexpr std::string_view what = "element type";
  static constexpr NamedValue<ElementType> names[] = {{ElementType::kUint8, "uint8"},
                                                      {ElementType::kInt64, "int64"},
                                                      {ElementType::kFloat32, "float32"},
                                                      {ElementType::kFloat16, "float16"},
                                                      {ElementType::kBFloat16, "bfloat16"}};
};

template <>
struct EnumNames<FieldKind> {
  static constexpr std::string_view what = "field kind";
  static constexpr NamedValue<FieldKind> names[] = {
      {FieldKind::kArray, "array"},         {FieldKind::kBytes, "bytes"},
      {FieldKind::kText, "text"},           {FieldKind::kMask, "mask"},
      {FieldKind::kBoxes, "boxes"},         {FieldKind::kBoxLabels, "box_labels"},
      {FieldKind::kBoxValues, "box_values"}};
};

template <>
struct EnumNames<FieldType> {
  static constexpr std::string_view what = "field type";
  static constexpr NamedValue<FieldType> names[] = {
      {FieldType::kBool, "bool"},       {FieldType::kInt8, "int8"},
      {FieldType::kInt16, "int16"},     {FieldType::kInt32, "int32"},
      {FieldType::kInt64, "int64"},     {FieldType::kUint8, "uint8"},
      {FieldType::kUint16, "uint16"},   {FieldType::kUint32, "uint32"},
      {FieldType::kUint64, "uint64"},   {FieldType::kFloat16, "float16"},
      {FieldType::kFloat32, "float32"}, {FieldType::kFloat64, "float64"}};
};

template <>
struct EnumNames<Layout> {
  static constexpr std::string_view what = "layout";
  static constexpr NamedValue<Layout> names[] = {{Layout::kNCHW, "NCHW"}, {Layout::kNHWC, "NHWC"}};
};

template <>
struct EnumNames<StoredLayout> {
  static constexpr std::string_view what = "stored layout";
  static constexpr NamedValue<StoredLayout> names[] = {{StoredLayout::kNHWC, "NHWC"},
                                                       {StoredLayout::kNCHW, "NCHW"},
                                                       {StoredLayout::kNHW, "NHW"},
                                                       {StoredLayout::kFlat, "flat"}};
};

// The kind part of a sampler ("chunks" of "chunks:8"); SamplerOptions::Parse reads the rest.
template <>
struct EnumNames<SamplerOptions::Kind> {
  static constexpr std::string_view what = "sampler";
  static constexpr NamedValue<SamplerOptions::Kind> names[] = {
      {SamplerOptions::Kind::kSequential, "sequential"},
      {SamplerOptions::Kind::kRandom, "random"},
      {SamplerOptions::Kind::kChunks, "chunks"},
      {SamplerOptions::Kind::kQuasi, "quasi"}};
};

// The kind part of a compression ("zstd" of "zstd:3"); Compression::Parse reads the rest.
template <>
struct EnumNames<Compression::Kind> {
  static constexpr std::string_view what = "compression";
  static constexpr NamedValue<Compression::Kind> names[] = {
      {Compression::Kind::kNone, "none"},
      {Compression::Kind::kZstd, "zstd"},
      {Compression::Kind::kDeflate, "gzip"},
      {Compression::Kind::kDeflate, "deflate"}};
};

namespace enum_names {

bool EqualIgnoringCase(std::string_view a, std::string_view b) noexcept;
// Every word of a table, joined: "auto, on, off".
template <typename Enum>
std::string Listed(std::string_view separator = ", ") {
  std::string text;
  for (const NamedValue<Enum>& entry : EnumNames<Enum>::names) {
    if (!text.empty()) text += separator;
    text += entry.name;
  }
  return text;
}
// The refusal of `text`: Error(kInvalidArgument) `<what> "<text>" is not one of: <words>`.
[[noreturn]] void Reject(std::string_view what, std::string_view text, const std::string& words);

}  // namespace enum_names

// The word of `value` (its first in the table); "" for a value the table lacks (a cast).
template <typename Enum>
constexpr std::string_view NameOf(Enum value) noexcept {
  for (const NamedValue<Enum>& entry : EnumNames<Enum>::names) {
    if (entry.value == value) return entry.name;
  }
  return {};
}

// The value a word names, in any case; nullopt for another word.
template <typename Enum>
std::optional<Enum> FindName(std::string_view text) noexcept {
  for (const NamedValue<Enum>& entry : EnumNames<Enum>::names) {
    if (enum_names::EqualIgnoringCase(entry.name, text)) return entry.value;
  }
  return std::nullopt;
}

// The value a word names, in any case. Throws Error(kInvalidArgument) listing every word.
template <typename Enum>
Enum ParseName(std::string_view text) {
  if (std::optional<Enum> value = FindName<Enum>(text)) return *value;
  enum_names::Reject(EnumNames<Enum>::what, text, enum_names::Listed<Enum>());
}

}  // namespace h5feed
