#pragma once
// The keywords of _h5feed.NativeLoader, each bound to the LoaderOptions field it sets
// (lib/include/h5feed/loader_options.h, output_options.h): what h5feed/_options.py's table of
// h5feed.Loader's arguments computes, and where its defaults come from. An augmentation spec
// (one per view) is a dict of AugmentOptions' fields, and `remote` one of RemoteOptions',
// bound the same way.

#include <pybind11/pybind11.h>

#include "h5feed/loader_options.h"
#include "option_table.h"

namespace h5feed::python {

template <>
struct OptionTableOf<LoaderOptions> {
  static const OptionTable<LoaderOptions>& Get();
};

template <>
struct OptionTableOf<AugmentOptions> {
  static const OptionTable<AugmentOptions>& Get();
};

// LoaderOptions::remote, as the dict `remote=` (docs/remote.md, "Options").
template <>
struct OptionTableOf<RemoteOptions> {
  static const OptionTable<RemoteOptions>& Get();
};

// LoaderOptions from NativeLoader's keywords: those of the table, and `augment` (a list of
// spec dicts) with `several_views` (false: the one spec is output.augment; true: the list is
// output.views). Throws as OptionTable::FromDict does.
LoaderOptions LoaderOptionsFromKeywords(pybind11::dict keywords);

// _h5feed.loader_option_defaults() and augment_option_defaults(): Options{} as dicts.
void BindOptionDefaults(pybind11::module_& module);

}  // namespace h5feed::python
