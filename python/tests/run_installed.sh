#!/usr/bin/env bash
# CTest "python": builds the wheel from this build tree (setup.py with CLFORGE_BUILD_DIR: the
# module target only, already built), checks that it holds the module and nothing else (the
# kernels and tuning data are embedded), installs it into a fresh virtual environment that sees
# the system's NumPy, pyopencl and pytest, and runs python/tests there from outside the source
# tree; conftest.py checks that clforge was imported from the environment.
# Usage: run_installed.sh <python3> <source dir> <build dir> <work dir>
set -euo pipefail
python=$1 src=$2 build=$3 work=$4
rm -rf "$work"
mkdir -p "$work/run"
cd "$work/run"
if ! CLFORGE_BUILD_DIR=$build "$python" -m build --wheel --no-isolation --outdir "$work/dist" "$src" \
  >"$work/build.log" 2>&1; then
  cat "$work/build.log"
  exit 1
fi
wheel=$(echo "$work"/dist/clforge-*.whl)
"$python" - "$wheel" <<'PY'
import sys, sysconfig, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
module = "clforge" + sysconfig.get_config_var("EXT_SUFFIX")
others = [n for n in names if n != module and not n.startswith("clforge-")]
assert module in names and not others, f"wheel holds {names}"
print(f"{sys.argv[1]}: {names}")
PY
"$python" -m venv --system-site-packages "$work/venv"
# --no-index: the dependencies (numpy, pyopencl) must come from the system, nothing is fetched.
"$work/venv/bin/python" -m pip install --no-index --no-cache-dir --disable-pip-version-check -q "$wheel"
export CLFORGE_TEST_MODULE_PREFIX=$work/venv
exec "$work/venv/bin/python" -m pytest -p no:cacheprovider "$src/python/tests"
