#!/usr/bin/env bash
# Builds the binary packages of a configured and built clforge tree with cpack (.deb and .tar.gz),
# checks the .deb's metadata (name, version, maintainer, dependencies installed here) and that the
# .tar.gz holds the same files, unpacks the .deb into a folder (dpkg-deb -x: the system stays as
# it is), runs its clforge command line and builds and runs tests/package against it.
#   deb_consumer.sh BUILD_DIR WORK_DIR GENERATOR CPACK CTEST
# CPACK and CTEST: the cpack and ctest of the CMake that configured BUILD_DIR.
# Exits with the consumer's status (77: no OpenCL device).
set -euo pipefail
build=$1 work=$2 generator=$3 cpack=$4 ctest=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
"$cpack" --config "$build/CPackConfig.cmake" -G "DEB;TGZ" -B "$work/packages" >"$work/cpack.log" ||
  { cat "$work/cpack.log"; exit 1; }
deb=$(echo "$work"/packages/*.deb)
tgz=$(echo "$work"/packages/*.tar.gz)
[ -f "$deb" ] && [ -f "$tgz" ] || { echo "cpack wrote no .deb or no .tar.gz"; ls "$work/packages"; exit 1; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
dpkg-deb --field "$deb" Package Version Architecture Maintainer Depends

# Metadata: name, version, a maintainer, and dependencies that are all installed on this machine
# (each "a | b (>= v)" needs one of its alternatives).
[ "$(dpkg-deb --field "$deb" Package)" = clforge ] || { echo "package name is not clforge"; exit 1; }
[ "$(dpkg-deb --field "$deb" Version)" = "$version" ] || { echo "package version is not $version"; exit 1; }
[ -n "$(dpkg-deb --field "$deb" Maintainer)" ] || { echo "no Maintainer"; exit 1; }
depends=$(dpkg-deb --field "$deb" Depends)
for lib in libc6 libstdc++6 ocl-icd-libopencl1 opencl-clhpp-headers; do
  [[ ", $depends," == *", $lib "* || ", $depends," == *", $lib,"* ]] || { echo "Depends lacks $lib"; exit 1; }
done
IFS=',' read -ra deps <<<"$depends"
for dep in "${deps[@]}"; do
  met=no
  IFS='|' read -ra alts <<<"$dep"
  for alt in "${alts[@]}"; do
    name=$(echo "$alt" | sed 's/(.*)//; s/ //g')
    dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed" && met=yes
  done
  [ "$met" = yes ] || { echo "dependency not installed here:$dep"; exit 1; }
done

# The .tar.gz holds the files of the .deb (under its top folder instead of /usr).
dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -n 's|^\./usr/||p' | grep -v '/$' | grep . | sort >"$work/deb.txt"
tar -tzf "$tgz" | sed 's|^[^/]*/||' | grep -v '/$' | grep . | sort >"$work/tgz.txt"
diff "$work/deb.txt" "$work/tgz.txt" || { echo ".deb and .tar.gz differ"; exit 1; }
for f in include/clforge/clforge.hpp share/clforge/VERSION bin/clforge lib/cmake/clforge/clforgeConfig.cmake \
  lib/pkgconfig/clforge.pc; do
  grep -qx "$f" "$work/deb.txt" || { echo "the package lacks $f"; exit 1; }
done

root=$work/root
dpkg-deb -x "$deb" "$root"
libdir=$(dirname "$(find "$root/usr" -name 'libclforge.so.*' -type f | head -n 1)")
"$root/usr/bin/clforge" --version
"$ctest" --build-and-test "$here" "$work/consumer" --build-generator "$generator" \
  --build-options "-DCMAKE_PREFIX_PATH=$root/usr" -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
  --test-command consumer share "$libdir"
