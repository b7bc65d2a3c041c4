// ReportView (report_view.h).

#include "reports/report_view.h"

#include <variant>

#include "make_error.h"

namespace h5feed::reports {

void ReportView::Mismatch(const char* wanted) const {
  throw MakeError(ErrorCode::kInternal,
                  "report key '{}' is not {}: the text and the report's builder disagree",
                  path_.empty() ? "(the report)" : path_, wanted);
}

ReportView ReportView::operator[](std::string_view key) const {
  for (const auto& [name, value] : Entries()) {
    if (name == key) return ReportView(value, path_.empty() ? name : path_ + "." + name);
  }
  throw MakeError(ErrorCode::kInternal,
                  "report '{}' has no key '{}': the text and the report's builder disagree",
                  path_.empty() ? "(the report)" : path_, key);
}

bool ReportView::Has(std::string_view key) const {
  const auto* object = std::get_if<ReportValue::Object>(&value_->value);
  if (object == nullptr) return false;
  for (const auto& entry : *object) {
    if (entry.first == key) return true;
  }
  return false;
}

bool ReportView::IsNull() const { return std::holds_alternative<std::monostate>(value_->value); }

bool ReportView::Bool() const {
  if (const bool* b = std::get_if<bool>(&value_->value)) return *b;
  Mismatch("a bool");
}

int64_t ReportView::Int() const {
  if (const int64_t* n = std::get_if<int64_t>(&value_->value)) return *n;
  Mismatch("an integer of int64's range");
}

uint64_t ReportView::Unsigned() const {
  if (const uint64_t* u = std::get_if<uint64_t>(&value_->value)) return *u;
  const int64_t* n = std::get_if<int64_t>(&value_->value);
  if (n == nullptr || *n < 0) Mismatch("a non-negative integer");
  return static_cast<uint64_t>(*n);
}

double ReportView::Real() const {
  if (const double* d = std::get_if<double>(&value_->value)) return *d;
  if (const int64_t* n = std::get_if<int64_t>(&value_->value)) return static_cast<double>(*n);
  if (const uint64_t* u = std::get_if<uint64_t>(&value_->value)) return static_cast<double>(*u);
  Mismatch("a number");
}

const std::string& ReportView::Text() const {
  if (const std::string* text = std::get_if<std::string>(&value_->value)) return *text;
  Mismatch("text");
}

std::vector<ReportView> ReportView::Items() const {
  const auto* list = std::get_if<ReportValue::List>(&value_->value);
  if (list == nullptr) Mismatch("a list");
  std::vector<ReportView> items;
  items.reserve(list->size());
  for (size_t i = 0; i < list->size(); ++i) {
    items.emplace_back((*list)[i], path_ + "[" + std::to_string(i) + "]");
  }
  return items;
}

const ReportValue::Object& ReportView::Entries() const {
  const auto* object = std::get_if<ReportValue::Object>(&value_->value);
  if (object == nullptr) Mismatch("an object");
  return *object;
}

}  // namespace h5feed::reports
