// The MPI component from a consumer: one rank takes every item.
#include <clforge/mpi.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  clforge::mpi::MpiOptions o;
  const clforge::mpi::Distribution d = clforge::mpi::distribute(MPI_COMM_WORLD, "fft", 10, o);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool ok = size != 1 || (d.count.size() == 1 && d.count[0] == 10);
  std::printf("consumer_mpi: %s\n", ok ? "ok" : "wrong distribution");
  MPI_Finalize();
  return ok ? 0 : 1;
}
