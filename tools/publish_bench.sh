#!/usr/bin/env bash
# Publishes the output of `clforge bench all --out DIR` as the current report of one machine:
# docs/bench/NAME/ is replaced by DIR's report.md, SVG charts and results.json (copied into a
# temp folder beside it, then renamed into place), and the lines for that machine's section of
# docs/benchmarks.md (date, commit, command, devices) are printed.
set -euo pipefail

usage() {
  cat >&2 <<EOF
usage: $0 DIR NAME [COMMIT]
  DIR     output folder of \`clforge bench all --out DIR\` (report.md, results.json, *.svg)
  NAME    device folder under docs/bench/ (e.g. h200): a-z, 0-9, '-' and '_'
  COMMIT  commit of the build that ran the report (default: this checkout's HEAD)
EOF
  exit 2
}
if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
dir=$1 name=$2
case $name in '' | *[!a-z0-9_-]*) usage ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
for f in report.md results.json; do
  [ -f "$dir/$f" ] || { echo "$dir/$f: missing (not a bench all output folder)" >&2; exit 1; }
done
grep -q '^  "format": "clforge bench all' "$dir/results.json" ||
  { echo "$dir/results.json: not the results of clforge bench all" >&2; exit 1; }
commit=${3:-$(git -C "$root" rev-parse --short HEAD)}

dest=$root/docs/bench/$name
mkdir -p "$root/docs/bench"
tmp=$(mktemp -d "$root/docs/bench/.$name.XXXXXX")
trap 'rm -rf "$tmp" "$tmp.old"' EXIT
cp "$dir/report.md" "$dir/results.json" "$tmp/"
shopt -s nullglob
charts=("$dir"/*.svg)
[ ${#charts[@]} -eq 0 ] || cp "${charts[@]}" "$tmp/"
chmod 755 "$tmp"
chmod 644 "$tmp"/*
[ ! -e "$dest" ] || mv "$dest" "$tmp.old"
mv "$tmp" "$dest"

# Top-level string fields of results.json (nlohmann's dump(2): two spaces of indentation).
field() { sed -n "s/^  \"$1\": \"\(.*\)\",\{0,1\}\$/\1/p" "$dest/results.json" | sed 's/\\"/"/g; s/\\\\/\\/g'; }
devices=$(sed -n 's/^        "name": "\(.*\)",\{0,1\}$/\1/p' "$dest/results.json" | paste -sd ';' - | sed 's/;/; /g')
quick=$(sed -n 's/^  "quick": \(true\|false\).*/\1/p' "$dest/results.json")

echo "docs/bench/$name/: report.md, results.json and ${#charts[@]} charts" >&2
[ "$quick" != true ] || echo "warning: a --quick run (short size lists)" >&2
cat <<EOF
- date: $(field date) (UTC)
- commit: $commit
- command: \`$(field command)\`
- devices: $devices
- full report: [docs/bench/$name/report.md](bench/$name/report.md)
EOF
