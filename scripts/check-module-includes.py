#!/usr/bin/python3
"""Checks that lib/, its unit tests and the front ends follow the module table, lib/modules.txt.

  - the table itself: known names, no cycle, a row for every folder of lib/ and every public
    header, no row for what does not exist;
  - every #include "..." in lib/: a file of module M includes only M's own headers, basics
    and the modules M's row lists (directly: what M reaches through another does not count);
    a public header (include/h5feed/) follows the rule of the module it belongs to; a program
    row's file, the modules of its row and its own folder;
  - every #include "..." in tests/lib/<M>/: M and every module M reaches (what such a test is
    linked with, tests/CMakeLists.txt), tests/support/, and the helpers of the test folders of
    those modules ("lib/<module>/..."); the tests at the top of tests/lib/ test basics;
  - namespaces: a file of lib/<M>/ opens h5feed::<M> (or namespaces inside it), or h5feed
    itself only to define what a public header declares;
  - the CMakeLists.txt files: lib/<M>/ never links another module by hand (h5feed_add_module
    links by the table), and tests/lib/ never links the whole library (h5feed::h5feed) or a
    module its module does not reach;
  - the `only` rows: a header that only the modules a row lists (and its own) may include,
    whatever their rows say, and no front end (index/chunk_reader.h: chunks are read through
    the chunk source, so a remote chunk corrupted on its way is fetched again everywhere);
  - HDF5's C API is called in lib/hdf5/ only (its RAII handles, the one HDF5 lock, its errors):
    no H5...( call in the rest of lib/ or in the front ends;
  - every #include "..." of the front ends (converters/, tools/, python/: the table's rows
    whose names end in '/'): public headers, the front end's own files, and what its row
    lists: modules of lib/ by name, and `converters` for the converters' surface (the table's
    `surface` rows); a folder without a row follows the nearest folder above it that has one.

Prints one line per broken rule, FILE:LINE: what, and exits 1 if there is any; 0 otherwise.

Usage: scripts/check-module-includes.py [--root DIR]    (DIR: a source tree; default: this one)
"""

import argparse
import os
import re
import sys

SOURCE_SUFFIXES = (".h", ".hpp", ".cc", ".cpp", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<(h5feed/[^>]+)>)')
NAMESPACE = re.compile(r"^\s*namespace\s+h5feed::(\w+)")
BASICS = "basics"
CONVERTERS = "converters"  # a front end's word for the converters' surface; also their folder
SURFACE = "surface"  # a row naming a header of that surface
ONLY = "only"  # a row naming a header and the only modules that may include it


class Table:
    """lib/modules.txt, parsed: modules and what each uses, program rows, public headers, front
    ends and the converters' surface."""

    def __init__(self, path, problems):
        self.path = path
        self.uses = {}  # module -> list of modules, in table order
        self.programs = {}  # "folder/file.cc" -> list of modules
        self.public = {}  # "h5feed/x.h" -> module or basics
        self.front = {}  # "tools/" -> what it may include: modules, basics, `converters`
        self.surface = {}  # "conversion.h" (from converters/) -> line number
        self.only = {}  # "index/chunk_reader.h" -> (modules that may include it, line number)
        self.lines = {}  # row name -> line number
        self._read(problems)

    def _read(self, problems):
        with open(self.path, encoding="utf-8") as table:
            for number, line in enumerate(table, 1):
                fields = line.split("#", 1)[0].split()
                if not fields:
                    continue
                name, values = fields[0], fields[1:]
                where = f"{rel(self.path)}:{number}"
                if name == SURFACE:
                    if len(values) != 1:
                        problems.append(f"{where}: a surface row names one header of "
                                        "converters/")
                    elif values[0] in self.surface:
                        problems.append(f"{where}: {values[0]} is on the surface already "
                                        f"(line {self.surface[values[0]]})")
                    else:
                        self.surface[values[0]] = number
                    continue
                if name == ONLY:
                    if len(values) < 2:
                        problems.append(f"{where}: an only row names a header of lib/ and the "
                                        "modules that may include it")
                    else:
                        self.only[values[0]] = (values[1:], number)
                    continue
                if name in self.lines:
                    problems.append(f"{where}: a second row for {name} "
                                    f"(the first is line {self.lines[name]})")
                    continue
                self.lines[name] = number
                if name.endswith("/"):
                    self.front[name] = values
                elif name.startswith("h5feed/"):
                    if len(values) != 1:
                        problems.append(f"{where}: public header {name} needs exactly one "
                                        "module (or basics) it belongs to")
                        continue
                    self.public[name] = values[0]
                elif "/" in name:
                    self.programs[name] = values
                elif name == BASICS:
                    problems.append(f"{where}: basics needs no row (every module has it)")
                else:
                    self.uses[name] = values

    def check(self, problems):
        where = lambda name: f"{rel(self.path)}:{self.lines[name]}"
        for name, used in list(self.uses.items()) + list(self.programs.items()):
            for module in used:
                if module not in self.uses:
                    problems.append(f"{where(name)}: {name} uses '{module}', which has no row")
                elif module == name:
                    problems.append(f"{where(name)}: {name} lists itself")
        for folder, used in self.front.items():
            for module in used:
                if module not in self.uses and module not in (BASICS, CONVERTERS):
                    problems.append(f"{where(folder)}: front end {folder} uses '{module}', "
                                    "which is neither a module with a row, basics nor "
                                    "converters")
        for header, module in self.public.items():
            if module != BASICS and module not in self.uses:
                problems.append(f"{where(header)}: {header} belongs to '{module}', which has "
                                "no row")
        for header, (modules, number) in self.only.items():
            if not os.path.isfile(os.path.join(ROOT, "lib", header)):
                problems.append(f"{rel(self.path)}:{number}: only row {header} names no file "
                                "of lib/")
            for module in modules:
                if module not in self.uses:
                    problems.append(f"{rel(self.path)}:{number}: only row {header} names "
                                    f"'{module}', which has no row")
        cycle = self.find_cycle()
        if cycle:
            problems.append(f"{where(cycle[0])}: the table has a cycle: "
                            + " -> ".join(cycle) + " (dependencies run one way)")

    def find_cycle(self):
        state = {}  # module -> "open" while on the path, "done" once all it reaches is seen
        path = []

        def visit(module):
            state[module] = "open"
            path.append(module)
            for used in self.uses.get(module, []):
                if state.get(used) == "open":
                    return path[path.index(used):] + [used]
                if used in self.uses and used not in state:
                    found = visit(used)
                    if found:
                        return found
            path.pop()
            state[module] = "done"
            return None

        for module in self.uses:
            if module not in state:
                found = visit(module)
                if found:
                    return found
        return None

    def reach(self, module):
        """module, basics, and every module it reaches through the table."""
        seen = [module, BASICS]
        pending = list(self.uses.get(module, []))
        while pending:
            used = pending.pop(0)
            if used not in seen:
                seen.append(used)
                pending.extend(self.uses.get(used, []))
        return seen

    def only_problem(self, included, module):
        """Why `module` (a module, or None for a front end) may not include `included` by an
        only row; None when it may."""
        if included not in self.only:
            return None
        modules = self.only[included][0]
        if module is not None and (module in modules or included.startswith(module + "/")):
            return None
        return (f"only {describe(modules)} may include {included} "
                f"(lib/modules.txt, line {self.only[included][1]})")

    def allowed(self, module):
        """What files of `module` may include: itself, basics and its row."""
        return [module, BASICS] + self.uses.get(module, [])


def rel(path):
    return os.path.relpath(path, ROOT)


def source_files(folder):
    for directory, folders, files in os.walk(folder):
        folders.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(directory, name)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as source:
        for number, line in enumerate(source, 1):
            match = INCLUDE.match(line)
            if match:
                yield number, match.group(1) or match.group(2)


def include_owner(table, included):
    """The module an included "<module>/...", "h5feed/..." or top-of-lib/ file belongs to; None
    if none of those."""
    if included.startswith("h5feed/"):
        return table.public.get(included, f"unlisted public header {included}")
    if "/" not in included and os.path.isfile(os.path.join(ROOT, "lib", included)):
        return BASICS  # a file at the top of lib/, as enum_names.h
    first = included.split("/", 1)[0]
    if "/" in included and first in table.uses:
        return first
    return None


def describe(modules):
    return ", ".join(modules)


def check_lib(table, problems):
    lib = os.path.join(ROOT, "lib")
    include_root = os.path.join(lib, "include")
    for entry in sorted(os.listdir(lib)):
        folder = os.path.join(lib, entry)
        if (os.path.isdir(folder) and entry != "include" and entry not in table.uses
                and any(source_files(folder))):
            problems.append(f"lib/{entry}/: a module folder with no row in lib/modules.txt "
                            "(add one that lists the modules it uses)")
    for module in table.uses:
        if not os.path.isdir(os.path.join(lib, module)):
            problems.append(f"{rel(table.path)}:{table.lines[module]}: module {module} has no "
                            f"folder lib/{module}/")
    for program in table.programs:
        if not os.path.isfile(os.path.join(lib, program)):
            problems.append(f"{rel(table.path)}:{table.lines[program]}: program row {program} "
                            f"names no file lib/{program}")
    listed = set(table.public)
    for path in source_files(os.path.join(include_root, "h5feed")):
        header = os.path.relpath(path, include_root)
        if header not in listed:
            problems.append(f"{rel(path)}: public header {header} has no row in "
                            "lib/modules.txt (the module it belongs to, or basics)")
        listed.discard(header)
    for header in sorted(listed):
        problems.append(f"{rel(table.path)}:{table.lines[header]}: {header} is not a file of "
                        "lib/include/")

    for path in source_files(lib):
        inside = os.path.relpath(path, lib)
        if inside.startswith("include" + os.sep):
            owner = table.public.get(os.path.relpath(path, include_root))
            if owner is None:
                continue  # reported above
            allowed, who = table.allowed(owner), f"{owner} (its header's row)"
        elif inside in table.programs:
            folder = inside.split("/", 1)[0]
            allowed = [folder, BASICS] + table.programs[inside]
            who = f"program {inside}"
        elif os.sep not in inside:
            allowed, who = [BASICS], BASICS  # the top of lib/: error.cc, enum_names.h
        else:
            module = inside.split(os.sep, 1)[0]
            if module not in table.uses:
                continue  # reported above
            allowed, who = table.allowed(module), module
        if who == module:
            check_namespaces(path, module, problems)
        for number, included in includes(path):
            owner = include_owner(table, included)
            if owner is None:
                problems.append(f"{rel(path)}:{number}: #include \"{included}\" names no "
                                "module: lib/ includes are written \"<module>/<file>\" from "
                                "lib/ (or \"h5feed/<file>\", or a file at the top of lib/)")
            elif owner not in allowed:
                problems.append(f"{rel(path)}:{number}: #include \"{included}\" uses {owner}, "
                                f"but {who} may use only {describe(allowed)} "
                                "(lib/modules.txt)")
            else:
                why = table.only_problem(included, who if who in table.uses else None)
                if why:
                    problems.append(f"{rel(path)}:{number}: #include \"{included}\": {why}")


def check_namespaces(path, module, problems):
    with open(path, encoding="utf-8", errors="replace") as source:
        for number, line in enumerate(source, 1):
            match = NAMESPACE.match(line)
            if match and match.group(1) != module:
                problems.append(f"{rel(path)}:{number}: namespace h5feed::{match.group(1)} in "
                                f"lib/{module}/: internal code of {module} lives in "
                                f"h5feed::{module}")


def check_tests(table, problems):
    tests = os.path.join(ROOT, "tests", "lib")
    if not os.path.isdir(tests):
        return
    # tests/lib/<module>/ tests its module; the files at the top of tests/lib/ test basics.
    top = [os.path.join(tests, name) for name in sorted(os.listdir(tests))
           if name.endswith(SOURCE_SUFFIXES)]
    groups = [(BASICS, top)]
    for module in sorted(os.listdir(tests)):
        folder = os.path.join(tests, module)
        if not os.path.isdir(folder):
            continue
        if module not in table.uses:
            problems.append(f"tests/lib/{module}/: tests of a module that has no row in "
                            "lib/modules.txt")
            continue
        groups.append((module, list(source_files(folder))))
    for module, paths in groups:
        reach = table.reach(module)
        for path in paths:
            for number, included in includes(path):
                if included.startswith("support/") or "/" not in included:
                    continue  # tests/support/, or a helper beside the test
                if included.startswith("lib/"):
                    owner = included.split("/")[1]  # a test folder's helper: its module's
                else:
                    owner = include_owner(table, included)
                    if owner is None:
                        continue  # a third-party or tests/ path written in quotes
                if owner not in reach:
                    problems.append(f"{rel(path)}:{number}: #include \"{included}\" uses "
                                    f"{owner}, but a test of {module} is linked with "
                                    f"{describe(reach)} only (lib/modules.txt); a test that "
                                    "needs more is misplaced or shows a use the table lacks")
                    continue
                why = table.only_problem(included, module)
                if why:
                    problems.append(f"{rel(path)}:{number}: #include \"{included}\": {why}")


def front_row(table, inside):
    """The front-end row that governs `inside` (a path from the root): the longest row name
    it lies under; None when none does."""
    best = None
    for folder in table.front:
        if inside.startswith(folder) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def check_front_ends(table, problems):
    for folder in table.front:
        if not os.path.isdir(os.path.join(ROOT, folder)):
            problems.append(f"{rel(table.path)}:{table.lines[folder]}: front end {folder} is "
                            "not a folder")
    converters = os.path.join(ROOT, CONVERTERS)
    for header, number in table.surface.items():
        if not os.path.isfile(os.path.join(converters, header)):
            problems.append(f"{rel(table.path)}:{number}: surface header {header} is not a "
                            f"file of {CONVERTERS}/")
    roots = sorted({folder.split("/", 1)[0] for folder in table.front})
    for root in roots:
        for path in source_files(os.path.join(ROOT, root)):
            inside = rel(path).replace(os.sep, "/")
            folder = front_row(table, inside)
            if folder is None:
                problems.append(f"{inside}: a folder of front end {root}/ with no row in "
                                "lib/modules.txt, and none above it")
                continue
            allowed = table.front[folder]
            for number, included in includes(path):
                check_front_include(table, path, root, folder, allowed, number, included,
                                    problems)


def check_front_include(table, path, root, folder, allowed, number, included, problems):
    here = f"{rel(path)}:{number}: #include \"{included}\""
    if included.startswith("h5feed/"):
        if included not in table.public:
            problems.append(f"{here} is no public header listed in lib/modules.txt")
        return
    beside = os.path.join(os.path.dirname(path), included)
    if os.path.isfile(beside) or os.path.isfile(os.path.join(ROOT, root, included)):
        return  # the front end's own file (beside it, or from its include root)
    owner = include_owner(table, included)
    why = table.only_problem(included, None)
    if why:
        problems.append(f"{here}: {why}")
        return
    if owner is not None:
        if owner not in allowed:
            problems.append(f"{here} uses {owner}, but {folder} may use only the public "
                            f"headers and {describe(allowed) or 'nothing else'} "
                            "(lib/modules.txt, the front ends)")
        return
    if os.path.isfile(os.path.join(ROOT, CONVERTERS, included)):
        if CONVERTERS not in allowed:
            problems.append(f"{here} is of the converters, which {folder} may not use "
                            "(lib/modules.txt, the front ends)")
        elif included not in table.surface:
            problems.append(f"{here} is of the converters but not on their surface: "
                            f"{folder} may include only the `surface` headers "
                            "(lib/modules.txt)")
        return
    problems.append(f"{here} names no public header, module, file of {root}/ or of the "
                    "converters")


# An HDF5 function (H5Dopen2, H5open, H5PLget), not a macro of h5feed's own (H5FEED_...).
HDF5_CALL = re.compile(r"\bH5(?!FEED)[A-Za-z][A-Za-z0-9_]*\s*\(")


def check_hdf5_calls(table, problems):
    """HDF5's C API only in lib/hdf5/: everyone else goes through its wrappers."""
    roots = [os.path.join(ROOT, "lib")] + [os.path.join(ROOT, folder.split("/", 1)[0])
                                           for folder in table.front]
    for root in sorted(set(roots)):
        for path in source_files(root):
            if rel(path).replace(os.sep, "/").startswith("lib/hdf5/"):
                continue
            with open(path, encoding="utf-8", errors="replace") as source:
                for number, line in enumerate(source, 1):
                    code = line.split("//", 1)[0]
                    match = HDF5_CALL.search(code)
                    if match:
                        problems.append(f"{rel(path)}:{number}: calls {match.group(0)[:-1].strip()}"
                                        ": HDF5's C API is called in lib/hdf5/ only (its "
                                        "handles, lock and errors); add or use a wrapper there")


def cmake_lines(path):
    with open(path, encoding="utf-8") as listing:
        for number, line in enumerate(listing, 1):
            yield number, line.split("#", 1)[0]


def check_cmake(table, problems):
    targets = {f"h5feed_{module}": module for module in list(table.uses) + [BASICS]}
    target = re.compile(r"\bh5feed_\w+\b")
    for module in table.uses:
        listing = os.path.join(ROOT, "lib", module, "CMakeLists.txt")
        if not os.path.isfile(listing):
            continue
        for number, code in cmake_lines(listing):
            for name in target.findall(code):
                if name in targets and targets[name] != module:
                    problems.append(f"{rel(listing)}:{number}: names {name}: a module's "
                                    "modules come from its row in lib/modules.txt "
                                    "(h5feed_add_module), never by hand")
    tests = os.path.join(ROOT, "tests", "lib")
    listings = []  # (module, CMakeLists.txt): tests/lib/ itself tests basics
    if os.path.isfile(os.path.join(tests, "CMakeLists.txt")):
        listings.append((BASICS, os.path.join(tests, "CMakeLists.txt")))
    for module in sorted(os.listdir(tests)) if os.path.isdir(tests) else []:
        if module not in table.uses:
            continue  # reported by check_tests
        for directory, _, files in os.walk(os.path.join(tests, module)):
            if "CMakeLists.txt" in files:
                listings.append((module, os.path.join(directory, "CMakeLists.txt")))
    for module, listing in listings:
        reach = table.reach(module)
        for number, code in cmake_lines(listing):
            for name in target.findall(code) + re.findall(r"h5feed::h5feed\b", code):
                if name == "h5feed::h5feed" or targets.get(name, module) not in reach:
                    problems.append(f"{rel(listing)}:{number}: links {name}: a test of "
                                    f"{module} is linked with {describe(reach)} only, "
                                    "from the folder it is in (h5feed_add_unit_test)")


def main():
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."),
                        help="the source tree to check (default: the one holding this script)")
    ROOT = os.path.abspath(parser.parse_args().root)
    problems = []
    table = Table(os.path.join(ROOT, "lib", "modules.txt"), problems)
    table.check(problems)
    check_lib(table, problems)
    check_tests(table, problems)
    check_cmake(table, problems)
    check_front_ends(table, problems)
    check_hdf5_calls(table, problems)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-module-includes: {len(problems)} problem(s); the table is lib/modules.txt")
        return 1
    print(f"check-module-includes: {len(table.uses)} modules and {len(table.front)} front "
          "ends, every include follows lib/modules.txt")
    return 0


ROOT = ""
if __name__ == "__main__":
    sys.exit(main())
