#!/usr/bin/env bash
# Builds oneTBB with ThreadSanitizer from Debian's source package of the installed libtbb-dev
# (same version, same ABI) and prints the folder holding its libtbb.so.12.
#
#   scripts/tsan-onetbb.sh WORK_DIR      (reuses WORK_DIR/tbb-build when it is already built)
#
# Why: Debian's libtbb is not instrumented, so TSan cannot see the happens-before edges of
# TBB's own task hand-offs and reports hundreds of races inside tbb::parallel_for itself
# (blocked_range, its small-object pool) whatever the caller does. Tests run against this
# build through LD_LIBRARY_PATH. About 3 minutes on 2 cores, plus a 2.5 MB download.
#
# Sources come from the Debian archive the machine already installs from: its apt sources
# (deb822 debian.sources or one-line sources.list) are copied with deb-src in place of deb
# into a private apt state under WORK_DIR, so the machine's own apt configuration is left
# untouched and no root is needed.
set -euo pipefail
work=$(realpath -m "${1:?usage: $0 WORK_DIR}")
build="$work/tbb-build"
built_lib() { find "$build" -name 'libtbb.so.12' -print -quit 2>/dev/null || true; }
if [[ -n "$(built_lib)" ]]; then
  dirname "$(built_lib)"
  exit 0
fi

version=$(dpkg-query -W -f='${source:Version}' libtbb-dev 2>/dev/null) || {
  echo "tsan-onetbb: libtbb-dev is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
}

apt_dir="$work/apt"
mkdir -p "$apt_dir/lists/partial" "$work/src"
shopt -s nullglob
: > "$apt_dir/deb-src.sources"
: > "$apt_dir/deb-src.list"
for f in /etc/apt/sources.list.d/*.sources; do
  sed -E 's/^Types:.*/Types: deb-src/' "$f" >> "$apt_dir/deb-src.sources"
  echo >> "$apt_dir/deb-src.sources"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [[ -f "$f" ]] && sed -nE 's/^deb(\s)/deb-src\1/p' "$f" >> "$apt_dir/deb-src.list"
done
apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir"
          -o "Dir::State::Lists=$apt_dir/lists" -o Debug::NoLocking=1
          -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" -qq update >&2
# The installed version first; any version the archive still holds after that (the same
# 2021.8 ABI on bookworm: a security update may have replaced the installed one there).
(cd "$work/src" && { apt-get "${apt_opts[@]}" -qq source --download-only "onetbb=$version" ||
                     apt-get "${apt_opts[@]}" -qq source --download-only onetbb; } >&2) || {
  echo "tsan-onetbb: could not download Debian's source package onetbb: the machine's apt" \
       "sources must reach a Debian archive (deb-src is derived from them)" >&2
  exit 1
}
tarball=$(find "$work/src" -maxdepth 1 -name 'onetbb_*.orig.tar.*' -print -quit)
tar -C "$work/src" -xf "$tarball"
source_dir=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d -iname 'onetbb-*' -print -quit)

# Only libtbb itself: no tests, no tbbmalloc (h5feed does not use it), no IPO (slow to link).
cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTBB_SANITIZE=thread -DTBB_TEST=OFF -DTBBMALLOC_BUILD=OFF -DTBB_STRICT=OFF \
  -DTBB_ENABLE_IPO=OFF -DCMAKE_CXX_FLAGS=-w > /dev/null
cmake --build "$build" -j"$(nproc)" --target tbb >&2
dirname "$(built_lib)"
