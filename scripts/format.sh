#!/usr/bin/env bash
# Applies .clang-format to the C++ and CUDA sources of lib/, tools/, converters/, python/src/,
# tests/, bench/ and examples/ (the files git tracks).
#
#   scripts/format.sh            reformats them in place
#   scripts/format.sh --check    changes nothing; lists the files clang-format would change and
#                                exits 1 if there is any (CI runs this)
#
# clang-format 14, Debian bookworm's (scripts/install-deps.sh): another major version breaks
# some lines differently, so the check says when it runs under one.
set -euo pipefail
cd "$(dirname "$0")/.."

check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac

clang_format=${CLANG_FORMAT:-clang-format}
if ! command -v "$clang_format" >/dev/null; then
  echo "format: $clang_format not found; install it (scripts/install-deps.sh)" >&2
  exit 2
fi
version=$("$clang_format" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [[ $version != 14 ]]; then
  echo "format: warning: clang-format $version; .clang-format is kept with version 14" >&2
fi

mapfile -t files < <(git ls-files -- lib tools converters python/src tests bench examples |
                     grep -E '\.(h|hpp|cc|cpp|cu|cuh)$')

if ! $check; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 32 -P "$(nproc)" "$clang_format" -i --style=file
  echo "format: ${#files[@]} files formatted"
  exit 0
fi

# One line per file that would change: clang-format's own check (--dry-run -Werror), many files
# per process; a process per file, piping into cmp, was most of this check's time.
unformatted=$(printf '%s\0' "${files[@]}" |
              xargs -0 -n 64 -P "$(nproc)" "$clang_format" --style=file --dry-run -Werror 2>&1 |
              sed -nE 's/^([^:]+):[0-9]+:[0-9]+: error: .*clang-format-violations.*/\1/p' |
              sort -u || true)
if [[ -n $unformatted ]]; then
  echo "$unformatted"
  echo "format: $(wc -l <<<"$unformatted") of ${#files[@]} files are not formatted;" \
       "scripts/format.sh formats them" >&2
  exit 1
fi
echo "format: ${#files[@]} files formatted as .clang-format says"
