#!/bin/sh
# Builds consumer.cpp with nothing but the compiler and `pkg-config clforge`, as a Makefile
# would, then runs it with the library dir that pkg-config names on the loader path.
#   pkgconfig_consumer.sh PC_DIR OUT_DIR CXX shared|static CONSUMER_ARGS...
# PC_DIR holds the clforge.pc to use (a build tree, or <prefix>/<libdir>/pkgconfig); PKG_CONFIG
# names the pkg-config program (default: pkg-config). Exits with the consumer's status (77: no
# OpenCL device).
set -eu
pc_dir=$1 out=$2 cxx=$3 kind=$4
shift 4
src=$(dirname "$0")/consumer.cpp
PKG_CONFIG_PATH=$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
pkgconf=${PKG_CONFIG:-pkg-config}
static=
[ "$kind" = static ] && static=--static

found=$("$pkgconf" --variable=pcfiledir clforge)
[ "$found" -ef "$pc_dir" ] || { echo "pkg-config found clforge in $found, not in $pc_dir"; exit 1; }
echo "$found/clforge.pc: clforge $("$pkgconf" --modversion clforge)"
cflags=$("$pkgconf" --cflags clforge)
libs=$("$pkgconf" $static --libs clforge)
libdir=$("$pkgconf" --variable=libdir clforge)
echo "cflags: $cflags"
echo "libs: $libs"
case " $cflags " in
  *" -D"*) echo "pkg-config --cflags clforge imposes definitions on consumers"; exit 1 ;;
esac

mkdir -p "$out"
# shellcheck disable=SC2086 # pkg-config's output is a list of words
"$cxx" -std=c++17 -DCONSUMER_EXPECT_CLHPP_TARGET=120 -DCONSUMER_EXPECT_CLHPP_MINIMUM=120 $cflags "$src" -o "$out/consumer" $libs
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$out/consumer" "$@"
