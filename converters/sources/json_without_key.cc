#include "sources/json_without_key.h"

#include <utility>
#include <vector>

#include "h5feed/error.h"
#include "make_error.h"
#include "sources/input_file.h"

namespace h5feed::converters {
namespace {

using Json = nlohmann::json;

// nlohmann's SAX events built into a value as its own DOM parser builds it, but for the
// members named `dropped`: their key and everything inside their value are counted past.
class DomWithout {
 public:
  DomWithout(Json& root, const std::string& dropped) : root_(root), dropped_(dropped) {}

  bool null() { return Put(nullptr); }
  bool boolean(bool value) { return Put(value); }
  bool number_integer(Json::number_integer_t value) { return Put(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return Put(value); }
  bool number_float(Json::number_float_t value, const std::string&) { return Put(value); }
  bool string(std::string& value) { return Put(std::move(value)); }
  bool binary(Json::binary_t& value) { return Put(std::move(value)); }
  bool start_object(std::size_t) { return Open(Json::object()); }
  bool start_array(std::size_t) { return Open(Json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(std::string& name) {
    if (skipped_depth_ > 0) return true;
    if (name == dropped_) {
      skipping_value_ = true;
      return true;
    }
    key_ = std::move(name);
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  // Puts a scalar where the parser is: the root, the next element of an array, or the member of
  // the last key. A scalar that is a dropped member's whole value ends the skip.
  template <typename Value>
  bool Put(Value&& value) {
    if (skipped_depth_ > 0) return true;
    if (skipping_value_) {
      skipping_value_ = false;
      return true;
    }
    Place(Json(std::forward<Value>(value)));
    return true;
  }

  bool Open(Json&& empty) {
    if (skipped_depth_ > 0 || skipping_value_) {
      skipping_value_ = false;
      ++skipped_depth_;
      return true;
    }
    open_.push_back(Place(std::move(empty)));
    return true;
  }

  bool Close() {
    if (skipped_depth_ > 0) {
      --skipped_depth_;
      return true;
    }
    open_.pop_back();
    return true;
  }

  Json* Place(Json&& value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    Json& member = parent[key_];
    member = std::move(value);
    return &member;
  }

  Json& root_;
  const std::string& dropped_;
  std::vector<Json*> open_;      // the objects and arrays being filled, innermost last
  std::string key_;              // the member the next value is, in the innermost object
  bool skipping_value_ = false;  // the next value is a dropped member's
  int skipped_depth_ = 0;        // > 0: inside a dropped value, this many containers deep
  std::string error_;
};

}  // namespace

Json ParseJsonWithout(const std::string& path, const std::string& dropped) {
  const InputFile file(path);
  const std::vector<uint8_t> bytes = file.ReadStart(file.size());
  const auto* text = reinterpret_cast<const char*>(bytes.data());
  Json root;
  DomWithout dom(root, dropped);
  if (!Json::sax_parse(text, text + bytes.size(), &dom)) {
    throw MakeError(ErrorCode::kCorrupt, "{} is not valid JSON: {}", path, dom.error());
  }
  return root;
}

}  // namespace h5feed::converters
