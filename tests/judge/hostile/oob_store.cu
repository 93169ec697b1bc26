#include <cuda_runtime.h>

// Writes four floats just past the end of dx (a classic missing tail check).

__global__ void past_the_end(float* dx, int N, int C) {
    if (threadIdx.x < 4) {
        dx[(size_t)N * C + threadIdx.x] = 0.0f;
    }
}

extern "C" void solve(const float* x, const float* dy, const float* weight, float* dx,
                      float* dweight, int N, int C, float eps) {
    past_the_end<<<1, 32>>>(dx, N, C);
    cudaDeviceSynchronize();
}
