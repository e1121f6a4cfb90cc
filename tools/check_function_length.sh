#!/usr/bin/env bash
# Checks that no function in src/ is longer than 100 lines (from its signature to its closing
# brace), so that each reads as a few named steps. Data tables are exempt: they are listed below
# as file:function with the reason. Lengths come from universal-ctags (its end: field; the
# Debian package universal-ctags, tools/deps.txt).
# Prints every function over the limit and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=100
# file:function   reason
allowed='
src/sgemm/sgemm_specs.cpp:sgemm_xgemm_spec    the tiled SGEMM kernel'"'"'s parameter table (CLBlast'"'"'s xgemm set)
src/blur/blur_specs.cpp:blur_separable_spec   the separable blur kernel'"'"'s parameter table
'
if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
  echo "check_function_length: needs universal-ctags (apt-get install universal-ctags; tools/deps.txt)" >&2
  exit 2
fi
bad=0
while IFS=$'\t' read -r length file name line; do
  if [ "$length" -le $limit ]; then continue; fi
  if grep -qE "^$file:$name[[:space:]]" <<<"$allowed"; then continue; fi
  echo "$file:$line: $name is $length lines (at most $limit; split it into named steps)"
  bad=1
done < <(ctags --languages=C++ --c++-kinds=f --fields=+ne -o - -R src |
  awk -F'\t' '{ l = 0; e = 0
                for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) l = substr($i, 6) + 0; if ($i ~ /^end:/) e = substr($i, 5) + 0 }
                if (l > 0 && e >= l) print e - l + 1 "\t" $2 "\t" $1 "\t" l }' | sort -k2,2 -k4,4n)
if [ $bad -ne 0 ]; then echo "check_function_length: functions over $limit lines (see tools/check_function_length.sh)"; exit 1; fi
echo "check_function_length: every function in src/ is at most $limit lines, data tables aside"
