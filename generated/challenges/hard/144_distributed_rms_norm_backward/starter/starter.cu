#include <cuda_runtime.h>
#include <nccl.h>

// One rank of several: x, dy and dx hold this rank's N rows.
// weight is whole on every rank.
// dweight must end whole and identical on every rank.
//
// After the signature's parameters solve gets ncclComm_t comm (this rank's NCCL
// communicator), int rank and int world_size. Launch kernels and collectives
// (ncclAllReduce(..., comm, 0)) on the default stream 0; the judge synchronises the
// device after solve returns.

// x, dy, weight, dx, dweight are device pointers
extern "C" void solve(const float* x, const float* dy, const float* weight, float* dx,
                      float* dweight, int N, int C, float eps, ncclComm_t comm, int rank,
                      int world_size) {}
