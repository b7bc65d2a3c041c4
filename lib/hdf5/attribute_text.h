#pragma once
// Any attribute's value as text, for showing what a file says about itself (`h5feed inspect`)
// and for attributes whose type h5feed does not dictate (a foreign file's "layout"): strings
// as they are, numbers in decimal (floats with 9 significant digits), several values as
// "[1, 2, 3]", more than 16 as "uint8 array of 300 values". Unlike attributes.h it never
// throws: an attribute that cannot be read reads "<unreadable>". Call under hdf5::Lock().

#include <hdf5.h>

#include <string>
#include <vector>

namespace h5feed::hdf5 {

struct AttributeText {
  std::string name;
  std::string value;
};

// The value of attribute `name` of `object` as text; empty when there is no such attribute.
std::string ReadAttributeText(hid_t object, const char* name);

// Every attribute of `object`, in name order.
std::vector<AttributeText> ReadAllAttributesText(hid_t object);

}  // namespace h5feed::hdf5
