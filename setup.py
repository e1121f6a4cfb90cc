# Builds the clforge extension module with CMake for setuptools (pyproject.toml). The module
# carries libclforge's objects and the embedded kernels, so the package is that one file.
# CLFORGE_BUILD_DIR=<configured build tree> builds the module there (nothing else is rebuilt)
# instead of configuring build-python/ for the library and the module only (with ccache when
# it is installed).
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(clforge VERSION ([0-9.]+)", text).group(1)


def build_dir():
    """The CMake build tree: CLFORGE_BUILD_DIR, else build-python/ (beside a usual build/, so
    that ccache with a base_dir finds the same relative paths there)."""
    value = os.environ.get("CLFORGE_BUILD_DIR")
    return Path(value).resolve() if value else ROOT / "build-python"


def configure(tree):
    """Configures a build tree for the library and the module only."""
    args = ["cmake", "-S", str(ROOT), "-B", str(tree), "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython3_EXECUTABLE={sys.executable}", "-DCLFORGE_BUILD_PYTHON=ON",
            "-DCLFORGE_BUILD_TESTS=OFF", "-DCLFORGE_BUILD_TOOLS=OFF", "-DCLFORGE_INSTALL=OFF",
            "-DCLFORGE_WITH_MPI=OFF"]
    if not (tree / "CMakeCache.txt").exists() and "CMAKE_GENERATOR" not in os.environ:
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
    if "CMAKE_CXX_COMPILER_LAUNCHER" not in os.environ and shutil.which("ccache"):
        args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    subprocess.run(args, check=True)


class CMakeBuild(build_ext):
    """Builds the CMake target clforge_python and copies the module into the wheel's tree."""

    def build_extension(self, ext):
        tree = build_dir()
        if "CLFORGE_BUILD_DIR" not in os.environ:
            configure(tree)
        jobs = str(self.parallel or os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(tree), "--target", "clforge_python", "-j", jobs], check=True)
        module = tree / "python" / ("clforge" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not module.is_file():
            sys.exit(f"{module} is missing: {tree} builds the module for another Python "
                     f"(configure it with -DPython3_EXECUTABLE={sys.executable})")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(module, target)


# setuptools' own build and metadata folders: inside the CMake tree, out of the source tree.
work = build_dir() / "python" / "setuptools"
work.mkdir(parents=True, exist_ok=True)
setup(
    version=project_version(),
    ext_modules=[Extension("clforge", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    packages=[],
    py_modules=[],
    options={"build": {"build_base": str(work / "build")}, "egg_info": {"egg_base": str(work)}},
)
