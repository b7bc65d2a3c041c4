#pragma once
// The keywords of _h5feed.NativeLoader, each bound to the LoaderOptions field it sets
// (lib/include/h5feed/loader_options.h, output_options.h): what h5feed/_options.py's table of
// h5feed.Loader's arguments computes, and where its defaults come from. An augmentation spec
// (one per view) is a dict of AugmentOptions' fields, and `remote` one of RemoteOptions',
// bound the same way.

#include <pybind11/pybind11.h>

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "h5feed/loader_options.h"
#include "h5feed/option_names.h"
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

// LoaderOptions::option_names for h5feed.Loader (option_names.h): a field path is named by the
// table's key of that field (or of the field holding it), as the argument `arguments` maps that
// key to (h5feed.Loader's argument of each NativeLoader keyword, from h5feed/_options.py); a
// path in `arguments` itself is named as it says. A view spec's field is named as Augment's
// (`augment_arguments`: Augment's field of each spec key) in "Augment." or "views[i].", and
// RemoteOptions' as "remote['retries']". Pure C++: it is called without the GIL.
OptionNames PythonOptionNames(std::map<std::string, std::string, std::less<>> arguments,
                              std::map<std::string, std::string, std::less<>> augment_arguments);

// RemoteOptions::option_names for h5feed.inspect and h5feed.verify (their remote= dict):
// "spill_dir" -> "remote['spill_dir']", as PythonOptionNames names a Loader's.
std::string PythonRemoteOptionName(std::string_view field);

// LoaderOptions from NativeLoader's keywords: those of the table, `augment` (a list of spec
// dicts) with `several_views` (false: the one spec is output.augment; true: the list is
// output.views), and `option_names` and `augment_names`, PythonOptionNames' dicts. Throws as
// OptionTable::FromDict does.
LoaderOptions LoaderOptionsFromKeywords(pybind11::dict keywords);

// _h5feed.loader_option_defaults() and augment_option_defaults(): Options{} as dicts.
void BindOptionDefaults(pybind11::module_& module);

}  // namespace h5feed::python
