#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

// Row inverse RMS of a bf16 matrix, a pure streaming read.
//
// Vector path (D % 8 == 0, 16-byte aligned rows): each thread issues UNROLL independent 16-byte
// loads (8 bf16 each) before consuming any of them, so a 256-thread block has 32 KB in flight;
// with several resident blocks per SM that comfortably covers DRAM latency. bf16 -> fp32 is a
// 16-bit shift, squares are summed pairwise inside each load, kept in UNROLL separate fp32
// partials, and combined by trees (per thread, per warp, per block) for an accurate sum.
// Long rows use one 256-thread block per row; short rows use one warp per row (8 rows per block)
// so no barrier is needed. Other D use the same layout with scalar loads.

namespace {

constexpr unsigned FULL_MASK = 0xffffffffu;
constexpr int BS = 256;
constexpr int UNROLL = 8;

__device__ __forceinline__ float lo_bf16(unsigned w) {
    return __uint_as_float(w << 16);
}

__device__ __forceinline__ float hi_bf16(unsigned w) {
    return __uint_as_float(w & 0xffff0000u);
}

// Sum of squares of the 8 bf16 values packed in v, added pairwise.
__device__ __forceinline__ float sq8(uint4 v) {
    const float a0 = lo_bf16(v.x), a1 = hi_bf16(v.x);
    const float a2 = lo_bf16(v.y), a3 = hi_bf16(v.y);
    const float a4 = lo_bf16(v.z), a5 = hi_bf16(v.z);
    const float a6 = lo_bf16(v.w), a7 = hi_bf16(v.w);
    return ((a0 * a0 + a1 * a1) + (a2 * a2 + a3 * a3)) +
           ((a4 * a4 + a5 * a5) + (a6 * a6 + a7 * a7));
}

// TPR threads per row (32 or BS). VEC: 16-byte loads. EVEN: D / 8 is a multiple of TPR * UNROLL,
// so the loads need no bounds checks. The minimum of 4 blocks per SM (<= 64 registers) matters:
// left to itself ptxas targets 32 registers and interleaves the loads with the math, leaving only
// 2-3 of them in flight per thread; with this bound all UNROLL loads are issued back to back
// (4 blocks x 32 KB = 128 KB of reads in flight per SM).
template <int TPR, bool VEC, bool EVEN>
__global__ void __launch_bounds__(BS, 4)
    inv_rms_rows(const __nv_bfloat16* __restrict__ x, float* __restrict__ inv_rms, int T, int D,
                 float eps) {
    constexpr int RPB = BS / TPR;
    constexpr int WPR = TPR / 32;
    __shared__ float red[BS / 32];

    const int slot = threadIdx.x / TPR;
    const int lane = threadIdx.x % TPR;
    const int row = blockIdx.x * RPB + slot;

    float sum = 0.0f;
    if (row < T) {
        if (VEC) {
            const uint4* xr = reinterpret_cast<const uint4*>(x + (size_t)row * D);
            const int D8 = D / 8;
            float part[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                part[u] = 0.0f;
            }
            for (int base = lane; base < D8; base += TPR * UNROLL) {
                uint4 v[UNROLL];
#pragma unroll
                for (int u = 0; u < UNROLL; ++u) {
                    const int idx = base + u * TPR;
                    // Streaming loads: x is read once, keep it from evicting anything useful.
                    v[u] = (EVEN || idx < D8) ? __ldcs(xr + idx) : make_uint4(0u, 0u, 0u, 0u);
                }
#pragma unroll
                for (int u = 0; u < UNROLL; ++u) {
                    part[u] += sq8(v[u]);
                }
            }
#pragma unroll
            for (int h = UNROLL / 2; h > 0; h >>= 1) {
#pragma unroll
                for (int u = 0; u < h; ++u) {
                    part[u] += part[u + h];
                }
            }
            sum = part[0];
        } else {
            const __nv_bfloat16* xr = x + (size_t)row * D;
            for (int j = lane; j < D; j += TPR) {
                const float v = __bfloat162float(xr[j]);
                sum += v * v;
            }
        }
    }

#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        sum += __shfl_xor_sync(FULL_MASK, sum, o);
    }

    if (WPR > 1) {
        // One row per block: combine the warp sums as a tree.
        if ((threadIdx.x & 31) == 0) {
            red[threadIdx.x >> 5] = sum;
        }
        __syncthreads();
        if (threadIdx.x == 0 && row < T) {
            float w[WPR];
#pragma unroll
            for (int k = 0; k < WPR; ++k) {
                w[k] = red[k];
            }
#pragma unroll
            for (int h = WPR / 2; h > 0; h >>= 1) {
#pragma unroll
                for (int k = 0; k < h; ++k) {
                    w[k] += w[k + h];
                }
            }
            // Correctly rounded division and sqrt rather than the rsqrt approximation.
            inv_rms[row] = 1.0f / sqrtf(w[0] / D + eps);
        }
    } else if (lane == 0 && row < T) {
        inv_rms[row] = 1.0f / sqrtf(sum / D + eps);
    }
}

template <int TPR, bool VEC, bool EVEN>
bool launch(const __nv_bfloat16* x, float* out, int T, int D, float eps) {
    constexpr int RPB = BS / TPR;
    const int grid = (int)(((long long)T + RPB - 1) / RPB);
    inv_rms_rows<TPR, VEC, EVEN><<<grid, BS>>>(x, out, T, D, eps);
    return cudaGetLastError() == cudaSuccess;
}

} // namespace

extern "C" void solve(const __nv_bfloat16* x, float* inv_rms, int T, int D, float eps) {
    if (T <= 0 || D <= 0) {
        return;
    }
    const bool vec = D % 8 == 0 && (reinterpret_cast<uintptr_t>(x) & 15) == 0;
    bool ok;
    if (vec) {
        const int D8 = D / 8;
        if (D8 <= 32 * UNROLL) {
            // Whole row in one round of loads per lane: one warp per row.
            ok = D8 == 32 * UNROLL ? launch<32, true, true>(x, inv_rms, T, D, eps)
                                   : launch<32, true, false>(x, inv_rms, T, D, eps);
        } else {
            ok = D8 % (BS * UNROLL) == 0 ? launch<BS, true, true>(x, inv_rms, T, D, eps)
                                         : launch<BS, true, false>(x, inv_rms, T, D, eps);
        }
    } else if (D <= 1024) {
        ok = launch<32, false, false>(x, inv_rms, T, D, eps);
    } else {
        ok = launch<BS, false, false>(x, inv_rms, T, D, eps);
    }
    if (!ok) {
        return;
    }
    cudaDeviceSynchronize();
}
