#!/bin/sh
# The --mpi forms of the command line under mpirun (CTest entry mpi_cli): run fft, sgemm and blur
# across three ranks with odd sizes, each checked against the host reference on rank 0, and
# bench split --mpi with its scaling line. Usage: tests/mpi_cli.sh CLFORGE MPIRUN...
set -eu
cli=$1
shift
out=$("$@" -n 3 "$cli" run fft --size 100,batch=37 --mpi --reps 1)
echo "$out"
echo "$out" | grep -q "across 3 ranks"
echo "$out" | grep -q "tolerance .*: ok"
out=$("$@" -n 3 "$cli" run sgemm --size 37x53x29,trans=TN --beta 0.5 --mpi --reps 1)
echo "$out"
echo "$out" | grep -q "tolerance .*: ok"
out=$("$@" -n 3 "$cli" run blur --size 61x47 --sigma 2 --method separable --border mirror --mpi --reps 1)
echo "$out"
echo "$out" | grep -q "tolerance .*: ok"
out=$("$@" -n 2 "$cli" bench split fft --size 64,batch=40 --mpi --reps 1)
echo "$out"
echo "$out" | grep -q "scaling efficiency"
echo "$out" | grep -q "median of the distributed call alone"
# A usage the MPI form does not have fails on every rank with the same message.
if "$@" -n 2 "$cli" run transpose --size 64 --mpi >/dev/null 2>&1; then
  echo "run transpose --mpi should be refused"
  exit 1
fi
# A rank whose devices cannot be had ends every rank, with its message, while the others wait.
if out=$(timeout 60 "$@" -n 2 "$cli" run fft --size 64,batch=40 --mpi --devices '0|no-such-device' 2>&1); then
  echo "a rank without its device should fail every rank"
  exit 1
fi
echo "$out" | grep -q "rank 1: .*no-such-device"
echo "mpi_cli: ok"
