#!/bin/sh
# Pulls the WCXB benchmark (2,008 pages, ~140 MB of gzipped HTML) into bench/data/wcxb/full/
# (gitignored), at the commit SOURCES.md names. The source is, in order: $WCXB_GIT_DIR (a git
# directory of the repository, e.g. a mirror snapshot), else a shallow clone from GitHub.
# Usage: sh bench/data/wcxb/fetch.sh
set -eu
COMMIT=c039d5ee9f5a3a984a0e167e63aacd04e76e78a9
URL=https://github.com/Murrough-Foley/web-content-extraction-benchmark
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/full"
SRC=${WCXB_GIT_DIR:-}
TMP=""
if [ -z "$SRC" ] && [ -d /work/.mirror/Murrough-Foley+web-content-extraction-benchmark/repo ]; then
  SRC=/work/.mirror/Murrough-Foley+web-content-extraction-benchmark/repo
fi
if [ -z "$SRC" ]; then
  TMP=$(mktemp -d)
  git clone --quiet --filter=blob:none --no-checkout "$URL" "$TMP/wcxb"
  SRC="$TMP/wcxb/.git"
fi
rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp"
git --git-dir="$SRC" archive "$COMMIT" dev test metadata.json evaluate.py LICENSE | tar -x -C "$OUT.tmp"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
[ -n "$TMP" ] && rm -rf "$TMP"
echo "WCXB $COMMIT in $OUT: $(ls "$OUT/dev/html" | wc -l) dev and $(ls "$OUT/test/html" | wc -l) test pages"
