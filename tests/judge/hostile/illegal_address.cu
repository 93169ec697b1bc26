#include <cuda_runtime.h>

// Stores 4 TiB past dx: far outside any allocation, so the GPU raises an illegal address.

__global__ void far_away(float* dx) {
    dx[((size_t)1 << 40) + threadIdx.x] = 1.0f;
}

extern "C" void solve(const float* x, const float* dy, const float* weight, float* dx,
                      float* dweight, int N, int C, float eps) {
    far_away<<<1, 32>>>(dx);
    cudaDeviceSynchronize();
}
