#pragma once
// The fields of an h5feed file (docs/format.md, "Fields"), read and checked when the file is
// opened, from metadata alone (no value is read): the root attribute `fields` lists them, in the
// writer's order, and each is a dataset at the root whose type, shape and h5feed_field
// attribute say what it is. A reader lists fields from the attribute, never by scanning
// datasets. Call under hdf5::Lock().

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5feed/field.h"
#include "hdf5/field_read.h"

namespace h5feed::index {

// The fields of `file` (named `path` in messages), whose images are `rows`; empty when it has
// none (no `fields` attribute). Throws Error(kCorrupt) naming the file and the field when the
// attribute is not a list of distinct valid names, or a field is missing, has another number
// of rows, a type that is no field's or another kind than its attribute says, an array shape
// CheckFieldSpec refuses, variable-length values stored chunked or filtered (bytes and text are
// stored in unfiltered chunks), or lacks its checksums (/field_checksums/NAME, uint64 (rows)).
std::vector<FieldSpec> ReadFieldSpecs(hid_t file, int64_t rows, const std::string& path);

// The spec `entry` (the dataset of field `name`, described by hdf5::DescribeFieldDataset) makes,
// checked as ReadFieldSpecs checks each field (its checksums apart).
FieldSpec FieldSpecOf(const hdf5::FieldDatasetEntry& entry, const std::string& name, int64_t rows,
                      const std::string& path);

// hdf5::DescribeFieldDataset for field `name` of `file`, with the attributes of the geometric
// kinds (a mask's element type, box labels' boxes field) read too. nullopt: no such dataset.
std::optional<hdf5::FieldDatasetEntry> DescribeField(hid_t file, const std::string& name,
                                                     const std::string& path);

// "/field_checksums/NAME": where the checksums of field `name` lie.
std::string FieldChecksumsName(const std::string& name);

// For a reader of field `spec`'s values in `file` (named `path`, its images `rows`), opened
// again after its index was read: the field's description, and its `rows` checksums, each
// checked to be what the index saw. Both throw Error(kCorrupt) "field NAME in PATH changed
// since the file was opened; open it again" otherwise.
hdf5::FieldDatasetEntry DescribeFieldAsOpened(hid_t file, const FieldSpec& spec, int64_t rows,
                                              const std::string& path);
std::vector<uint64_t> ReadFieldChecksums(hid_t file, const FieldSpec& spec, int64_t rows,
                                         const std::string& path);

}  // namespace h5feed::index
