#include <cuda_runtime.h>

__device__ int mix_round(int v) {
    return ((v ^ (v >> 7)) * 31) & 0xFFFF;
}

__global__ void mix_kernel(const int* x, int* out, size_t N, int R) {}

// x, out are device pointers (i.e. pointers to memory on the GPU)
extern "C" void solve(const int* x, int* out, size_t N, int R) {
    int threadsPerBlock = 256;
    int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;

    mix_kernel<<<blocksPerGrid, threadsPerBlock>>>(x, out, N, R);
    cudaDeviceSynchronize();
}
