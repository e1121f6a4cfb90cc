#!/usr/bin/env bash
# The sanitizer job, CI's second command (.ci/run runs it after tools/run_tests.sh): builds the
# library and the tests with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ and with ThreadSanitizer into
# build-tsan/ (CLFORGE_SANITIZE=address|thread), then runs the test selection below on the OpenCL
# device the tests pick. Any report fails the job; reports from inside the OpenCL runtime are
# suppressed by tools/sanitizers/*.supp, never those from clforge code.
#
# The selection keeps the whole job near 8 minutes from clean build directories on a 2-core
# machine with PoCL: every suite runs, less the cases that spend minutes in PoCL's kernel compiler
# or in instrumented host references (excluded with -tce; fft runs an explicit list with -tc; the
# FFT parameter-set suites fft_params, fft_passes and fft_rows, a hundred or more kernels each,
# run in CTest only; of the tuner's sampled-verification cases, one per family, transpose's
# stands for the others here: sgemm's, fft's and blur's took 130-150 s each under ASan on the
# 2-core EPYC, 2026-11-29).
# That assumes PoCL's own kernel cache (~/.cache/pocl) is warm, as it is after the CTest run of
# tools/run_tests.sh (CI runs that first): with a cold one PoCL compiles every kernel again and the same runs take
# about ten times longer (2-core EPYC: blur 196 s, sgemm 253 s instead of 15 s and 10 s).
# Usage: tools/run_sanitizers.sh [address|thread]...   (default: both)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
supp="$root/tools/sanitizers"
jobs=$(nproc)
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(address thread)

# ASan + UBSan, one build. -Og -g1 instead of -O1 -g: a third of the compile time (test_tune_results.cpp:
# 28 s against 69 s) with line numbers in every report; assertions stay on.
asan_runs=(
  "runtime|--test-suite=runtime"
  "tuning_database|--test-suite=tuning_database"
  "cache|--test-suite=cache"
  "transpose|--test-suite=transpose|-tce=every tile / rows-per-item*"
  "blur|--test-suite=blur|-tce=large image*"
  "sgemm|--test-suite=sgemm|-tce=333x1000x17 and 1000x1000x1000*,random legal parameter sets*"
  "fft|--test-suite=fft|-tc=in place,scaling:*,decomposition,host-vector convenience overload,bad arguments*,a new plan with the same description*,passes resolve rows*,shipped GPU rows fit*,the host reference without FFTW*,the launcher names each FFT kernel*,one multi-pass plan*"
  "tune|--test-suite=tune|-tce=a space too large to enumerate*,tune fft and blur: size classes*,sampled verification of sgemm*,sampled verification of fft*,sampled verification of blur*"
  "tune_compiles|--test-suite=tune_compiles"
  "fft_rader|--test-suite=fft_rader"
  "fft_real_nd|--test-suite=fft_real,fft_nd,fft_real_nd"
)
# The safety suite (tests/test_safety.cpp) joins when its file exists.
[ -f "$root/tests/test_safety.cpp" ] && asan_runs+=("safety|--test-suite=safety")
# bench_all only has cases when the command line is built (CLFORGE_BUILD_TOOLS), which it is not here.

# ThreadSanitizer: the tests that start threads (and the group suite, run below with two PoCL
# devices: every group call runs a thread per device), plus the tuner, which compiles candidates on
# several threads of its own (std::thread in src/tuning/tuner_build.cpp) and, as on GPUs, evaluates
# a batch's candidates while its others compile.
tsan_runs=(
  "runtime_threads|--test-suite=runtime|-tc=concurrent calls from 8 threads*"
  "sgemm_threads|--test-suite=sgemm|-tc=concurrent calls from several threads*,SgemmPlan used from several threads*"
  "blur_threads|--test-suite=blur|-tc=BlurPlan: enqueued from several threads*"
  "fft_threads|--test-suite=fft|-tc=one multi-pass plan enqueued from several threads*"
  "tune_overlap|--test-suite=tune_compiles|-tc=a batch's candidates are evaluated while*"
  "tune_threads|--test-suite=tune|-tc=tuned parameters are stored*,candidates that fail to build*"
)

# The safety suite's fuzz throws 2,000 argument sets per routine here (CTest: 10,000): under ASan
# each enqueued set costs ten times as much, and 2,000 still reach every refusal and the accepted
# sets of every routine (81 s against 29 s on the 2-core EPYC, 2026-11-29).
export CLFORGE_SAFETY_CASES=${CLFORGE_SAFETY_CASES:-2000}

# One seed for every run, printed first: a sanitizer that stops the process loses the runner's own
# (buffered) seed line. CLFORGE_TEST_SEED=<seed> tools/run_sanitizers.sh repeats a run.
export CLFORGE_TEST_SEED=${CLFORGE_TEST_SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}
echo "sanitizer job: CLFORGE_TEST_SEED=$CLFORGE_TEST_SEED"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
summary=()
failed=()
note() {  # note NAME SECONDS: remembers a line for the summary
  summary+=("$(printf '%-28s %5s s' "$1" "$2")")
}

# The suites of a run list ("name|--test-suite=SUITE|..."), as CMake's ;-list: the build
# compiles only their test files (CLFORGE_TEST_SUITES), and neither MPI nor Python, which no run uses.
suites_of() {
  local r out=""
  for r in "$@"; do
    r=${r#*--test-suite=}
    r=${r%%|*}
    out+="${r//,/;};"  # doctest's list "a,b" is CMake's "a;b"
  done
  echo "${out}group"
}

build() {  # build KIND DIR SUITES
  local kind=$1 dir=$2 suites=$3 t0
  t0=$(now)
  echo "== $kind: configure and build $dir"
  mkdir -p "$dir"
  if ! cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-Og -g1" \
         -DCLFORGE_SANITIZE="$kind" -DCLFORGE_BUILD_TESTS=ON -DCLFORGE_BUILD_TOOLS=OFF -DCLFORGE_INSTALL=OFF \
         -DCLFORGE_WITH_MPI=OFF -DCLFORGE_BUILD_PYTHON=OFF -DCLFORGE_TEST_SUITES="$suites" \
         >"$dir/configure.log" 2>&1; then
    cat "$dir/configure.log"
    return 1
  fi
  cmake --build "$dir" -j "$jobs" || return 1
  note "build $kind" "$(secs "$t0" "$(now)")"
}

# run DIR NAME COMMAND...: one test process with its own cache and tuning folders and log.
run() {
  local dir=$1 name=$2 t0 rc log
  shift 2
  local work="$dir/sanitizer-runs/$name"
  rm -rf "$work" && mkdir -p "$work"
  log="$work/output.log"
  t0=$(now)
  CLFORGE_CACHE_DIR="$work/cache" CLFORGE_USER_TUNING_DIR="$work/user-tuning" timeout 300 "$@" >"$log" 2>&1
  rc=$?
  local t
  t=$(secs "$t0" "$(now)")
  if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then
    echo "   ok   $name ($t s)$([ $rc -eq 77 ] && echo ', no OpenCL device: skipped')"
  else
    echo "   FAIL $name ($t s, exit $rc): $log"
    # The sanitizer reports and doctest's failures; the whole log stays in the file.
    grep -nE 'ERROR: |WARNING: ThreadSanitizer|runtime error|SUMMARY|ERROR!|FAILED!' "$log" | head -40
    tail -n 150 "$log"
    failed+=("$name")
  fi
  note "  $name" "$t"
}

start=$(now)
for kind in "${kinds[@]}"; do
  case $kind in
    address)
      dir="$root/build-asan"
      build address "$dir" "$(suites_of "${asan_runs[@]}")" || { failed+=("build address"); continue; }
      t0=$(now)
      echo "== address: AddressSanitizer + UndefinedBehaviorSanitizer"
      # use_sigaltstack=0: PoCL's LLVM (llvm::sys::RemoveFileOnSignal) puts its own alternate signal
      # stack on the thread that first compiles; when that thread ends, ASan fails to unmap it as
      # its own ("AddressSanitizer failed to deallocate", clforge_first_contact).
      export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1:use_sigaltstack=0"
      export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
      export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
      for r in "${asan_runs[@]}"; do
        IFS='|' read -r -a f <<<"$r"
        run "$dir" "${f[0]}" "$dir/tests/clforge_tests" "${f[@]:1}"
      done
      # Group calls on two PoCL devices (a thread per device in every call).
      run "$dir" group env "POCL_DEVICES=pthread pthread" "$dir/tests/clforge_tests" --test-suite=group
      # The 16-thread first contact under ASan too (it needs use_sigaltstack=0, see above).
      run "$dir" first_contact sh -c 'CLFORGE_CACHE_DIR=off "$0" 16' "$dir/tests/clforge_first_contact"
      unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
      note "runs address" "$(secs "$t0" "$(now)")"
      ;;
    thread)
      dir="$root/build-tsan"
      build thread "$dir" "$(suites_of "${tsan_runs[@]}")" || { failed+=("build thread"); continue; }
      t0=$(now)
      echo "== thread: ThreadSanitizer"
      export TSAN_OPTIONS="suppressions=$supp/tsan.supp:print_suppressions=0:halt_on_error=0:second_deadlock_stack=1"
      # First contact from 16 threads, three processes as in CTest.
      run "$dir" first_contact sh -c 'for i in 1 2 3; do CLFORGE_CACHE_DIR=off "$0" 16 || exit $?; done' \
        "$dir/tests/clforge_first_contact"
      for r in "${tsan_runs[@]}"; do
        IFS='|' read -r -a f <<<"$r"
        run "$dir" "${f[0]}" "$dir/tests/clforge_tests" "${f[@]:1}"
      done
      run "$dir" group_threads env "POCL_DEVICES=pthread pthread" "$dir/tests/clforge_tests" --test-suite=group
      unset TSAN_OPTIONS
      note "runs thread" "$(secs "$t0" "$(now)")"
      ;;
    *)
      echo "unknown sanitizer '$kind' (address or thread)" >&2
      exit 2
      ;;
  esac
done

echo "== sanitizer job: wall times"
printf '%s\n' "${summary[@]}"
printf '%-28s %5s s\n' "total" "$(secs "$start" "$(now)")"
if [ ${#failed[@]} -gt 0 ]; then
  echo "sanitizer job FAILED: ${failed[*]}"
  exit 1
fi
echo "sanitizer job passed"
