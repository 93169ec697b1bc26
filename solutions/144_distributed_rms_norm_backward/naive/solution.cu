#include <cuda_runtime.h>
#include <nccl.h>

// This rank's rows: dx and each row's rstd locally, the partial dweight of these rows, then
// that partial summed over every rank in place (ncclAllReduce on the default stream).

constexpr int THREADS = 256;

__global__ void rows_kernel(const float* x, const float* dy, const float* weight, float* dx,
                            float* rstd_out, int C, float eps) {
    __shared__ float squares[THREADS];
    __shared__ float products[THREADS];
    const float* x_row = x + (size_t)blockIdx.x * C;
    const float* dy_row = dy + (size_t)blockIdx.x * C;
    float square = 0.0f, product = 0.0f;
    for (int j = threadIdx.x; j < C; j += THREADS) {
        square += x_row[j] * x_row[j];
        product += dy_row[j] * weight[j] * x_row[j];
    }
    squares[threadIdx.x] = square;
    products[threadIdx.x] = product;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            squares[threadIdx.x] += squares[threadIdx.x + half];
            products[threadIdx.x] += products[threadIdx.x + half];
        }
        __syncthreads();
    }
    float rstd = rsqrtf(squares[0] / C + eps);
    // mean over the row of g * x_hat, with g = dy * weight and x_hat = x * rstd
    float mean = rstd * products[0] / C;
    for (int j = threadIdx.x; j < C; j += THREADS) {
        float g = dy_row[j] * weight[j];
        dx[(size_t)blockIdx.x * C + j] = rstd * (g - x_row[j] * rstd * mean);
    }
    if (threadIdx.x == 0) {
        rstd_out[blockIdx.x] = rstd;
    }
}

__global__ void columns_kernel(const float* x, const float* dy, const float* rstd,
                               float* dweight, int N, int C) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= C) {
        return;
    }
    float sum = 0.0f;
    for (int i = 0; i < N; ++i) {
        sum += dy[(size_t)i * C + j] * x[(size_t)i * C + j] * rstd[i];
    }
    dweight[j] = sum;
}

// x, dy, weight, dx, dweight are device pointers
extern "C" void solve(const float* x, const float* dy, const float* weight, float* dx,
                      float* dweight, int N, int C, float eps, ncclComm_t comm, int rank,
                      int world_size) {
    float* rstd = nullptr;
    if (N > 0) {
        cudaMalloc(&rstd, (size_t)N * sizeof(float));
        rows_kernel<<<N, THREADS>>>(x, dy, weight, dx, rstd, C, eps);
    }
    columns_kernel<<<(C + THREADS - 1) / THREADS, THREADS>>>(x, dy, rstd, dweight, N, C);
    ncclAllReduce(dweight, dweight, (size_t)C, ncclFloat, ncclSum, comm, 0);
    if (rstd != nullptr) {
        cudaFree(rstd);
    }
}
