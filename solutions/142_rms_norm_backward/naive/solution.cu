#include <cuda_runtime.h>

// Textbook two-kernel RMSNorm backward.
//   Kernel A (one block per row): rstd and sum(g * x) via one block reduction, then dx.
//   Kernel B (one thread per column): dweight[j] = sum_i dy[i, j] * x[i, j] * rstd[i].

#define BLOCK 256

__global__ void row_kernel(const float* x, const float* dy, const float* weight, float* dx,
                           float* rstd, int C, float eps) {
    __shared__ float s_ss[BLOCK];
    __shared__ float s_dot[BLOCK];
    const int row = blockIdx.x;
    const float* xr = x + (size_t)row * C;
    const float* dyr = dy + (size_t)row * C;
    float* dxr = dx + (size_t)row * C;

    float ss = 0.0f;
    float dot = 0.0f;
    for (int j = threadIdx.x; j < C; j += BLOCK) {
        const float xv = xr[j];
        ss += xv * xv;
        dot += dyr[j] * weight[j] * xv;
    }
    s_ss[threadIdx.x] = ss;
    s_dot[threadIdx.x] = dot;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            s_ss[threadIdx.x] += s_ss[threadIdx.x + s];
            s_dot[threadIdx.x] += s_dot[threadIdx.x + s];
        }
        __syncthreads();
    }

    const float r = 1.0f / sqrtf(s_ss[0] / C + eps);
    // d(r)/dx contributes -x * r^3 * sum(g * x) / C to every element of the row.
    const float c = r * r * r * s_dot[0] / C;
    if (threadIdx.x == 0) {
        rstd[row] = r;
    }
    for (int j = threadIdx.x; j < C; j += BLOCK) {
        dxr[j] = r * dyr[j] * weight[j] - c * xr[j];
    }
}

__global__ void dweight_kernel(const float* x, const float* dy, const float* rstd, float* dweight,
                               int N, int C) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= C) {
        return;
    }
    float acc = 0.0f;
    for (int i = 0; i < N; ++i) {
        const size_t idx = (size_t)i * C + j;
        acc += dy[idx] * x[idx] * rstd[i];
    }
    dweight[j] = acc;
}

extern "C" void solve(const float* x, const float* dy, const float* weight, float* dx,
                      float* dweight, int N, int C, float eps) {
    if (C <= 0) {
        return;
    }
    if (N <= 0) {
        cudaMemset(dweight, 0, (size_t)C * sizeof(float));
        cudaDeviceSynchronize();
        return;
    }

    // Per-row rstd scratch, allocated once and grown on demand.
    static float* rstd = nullptr;
    static int rstd_cap = 0;
    if (rstd_cap < N) {
        if (rstd != nullptr) {
            cudaFree(rstd);
            rstd = nullptr;
            rstd_cap = 0;
        }
        if (cudaMalloc(&rstd, (size_t)N * sizeof(float)) != cudaSuccess) {
            rstd = nullptr;
            return;
        }
        rstd_cap = N;
    }

    row_kernel<<<N, BLOCK>>>(x, dy, weight, dx, rstd, C, eps);
    if (cudaGetLastError() != cudaSuccess) {
        return;
    }
    dweight_kernel<<<(C + BLOCK - 1) / BLOCK, BLOCK>>>(x, dy, rstd, dweight, N, C);
    if (cudaGetLastError() != cudaSuccess) {
        return;
    }
    cudaDeviceSynchronize();
}
