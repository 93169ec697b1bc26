#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

// Row inverse RMS of a bf16 matrix: a pure streaming read, so the whole game is keeping enough
// bytes in flight on every SM.
//
// Long rows (D > 2048): one 256-thread block per row. With D % 8 == 0 and a 16-byte aligned x,
// every thread issues all of its 16-byte loads (8 bf16 each, up to 8 loads per round) before it
// uses any of them, so a block has its whole row (32 KB at D = 16384) requested at once; the
// launch bounds keep at least 4 blocks resident per SM (<= 64 registers). On an H200 this measured
// as fast as persistent grids with shared-memory pipelines (bulk copies or cp.async) and faster
// than a warp per row. The loads are .cs (streaming): x is read exactly once.
// Short rows (D <= 2048): one warp per row, 8 rows per block, no barrier.
// D % 8 != 0 or a misaligned x: the same two layouts with scalar loads.
//
// Accuracy: the squares of bf16 values are exact in fp32. They are summed pairwise inside each
// 16-byte vector, the per-load partials are folded as a tree, then come the warp butterflies and
// a tree over the warps; rows longer than one round of loads add one term per round to each
// partial. The fp32 total is then converted to double, and the mean, the square root and the
// reciprocal are evaluated in fp64 and rounded to fp32 once, so the only fp32 roundings are those
// of the (short, tree-shaped) sum.
//
// Everything is queued on the default stream; solve returns without waiting for the GPU.

namespace {

constexpr unsigned FULL_MASK = 0xffffffffu;
constexpr int BS = 256;          // threads per block
constexpr int UNROLL = 8;        // loads per thread and round
constexpr int WARP_MAX_D = 2048; // longest row given to a single warp

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

// Streaming 16-byte load that yields zeros when !pred. Predicated PTX instead of a branch keeps
// the loads of a round in one basic block, so they are all issued before any result is used.
__device__ __forceinline__ uint4 ld16(const uint4* p, bool pred) {
    uint4 v;
    asm volatile("{\n\t"
                 ".reg .pred q;\n\t"
                 "setp.ne.b32 q, %5, 0;\n\t"
                 "mov.u32 %0, 0;\n\t"
                 "mov.u32 %1, 0;\n\t"
                 "mov.u32 %2, 0;\n\t"
                 "mov.u32 %3, 0;\n\t"
                 "@q ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];\n\t"
                 "}"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "r"((int)pred)
                 : "memory");
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_xor_sync(FULL_MASK, v, o);
    }
    return v;
}

// Tree over the per-load partials: neighbours first, then pairs of pairs.
__device__ __forceinline__ float fold(float (&p)[UNROLL]) {
#pragma unroll
    for (int h = 1; h < UNROLL; h <<= 1) {
#pragma unroll
        for (int u = 0; u + h < UNROLL; u += 2 * h) {
            p[u] += p[u + h];
        }
    }
    return p[0];
}

// 1 / sqrt(total / D + eps), evaluated in fp64 and rounded to fp32 once.
__device__ __forceinline__ float finish(float total, int D, float eps) {
    const double mean = (double)total / (double)D;
    return (float)(1.0 / sqrt(mean + (double)eps));
}

// TPR threads per row (32: a warp per row, BS: a block per row). VEC: 16-byte loads (D % 8 == 0,
// 16-byte aligned x), else scalar loads, UNROLL per thread and round either way.
template <int TPR, bool VEC>
__global__ void __launch_bounds__(BS, 4)
    inv_rms_rows(const __nv_bfloat16* __restrict__ x, float* __restrict__ inv_rms, int T, int D,
                 float eps) {
    constexpr int WPR = TPR / 32;
    constexpr int RPB = BS / TPR;
    const int lane = threadIdx.x % TPR;
    const int row = blockIdx.x * RPB + (int)threadIdx.x / TPR;
    if (WPR == 1 && row >= T) {
        return; // no barrier below for a warp per row
    }

    float p[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        p[u] = 0.0f;
    }
    if (VEC) {
        const int D8 = D / 8;
        const uint4* xr = reinterpret_cast<const uint4*>(x) + (size_t)row * D8;
        for (int base = lane; base < D8; base += TPR * UNROLL) {
            uint4 v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const int c = base + u * TPR;
                v[u] = ld16(xr + c, c < D8);
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                p[u] += sq8(v[u]);
            }
        }
    } else {
        const __nv_bfloat16* xr = x + (size_t)row * D;
        for (int base = lane; base < D; base += TPR * UNROLL) {
            float v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const int c = base + u * TPR;
                v[u] = c < D ? __bfloat162float(xr[c]) : 0.0f;
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                p[u] += v[u] * v[u];
            }
        }
    }
    float total = warp_sum(fold(p));

    if (WPR > 1) {
        // One row per block: a tree over the warp totals.
        __shared__ float red[BS / 32];
        const int warp_lane = threadIdx.x & 31;
        if (warp_lane == 0) {
            red[threadIdx.x >> 5] = total;
        }
        __syncthreads();
        if (threadIdx.x >= 32) {
            return;
        }
        total = warp_sum(warp_lane < WPR ? red[warp_lane] : 0.0f);
    }
    if (lane == 0) {
        inv_rms[row] = finish(total, D, eps);
    }
}

template <int TPR, bool VEC>
void launch(const __nv_bfloat16* x, float* inv_rms, int T, int D, float eps) {
    constexpr int RPB = BS / TPR;
    const int grid = (int)(((long long)T + RPB - 1) / RPB);
    inv_rms_rows<TPR, VEC><<<grid, BS>>>(x, inv_rms, T, D, eps);
}

} // namespace

extern "C" void solve(const __nv_bfloat16* x, float* inv_rms, int T, int D, float eps) {
    if (T <= 0 || D <= 0) {
        return;
    }
    const bool vec = D % 8 == 0 && (reinterpret_cast<uintptr_t>(x) & 15) == 0;
    const bool block_per_row = D > WARP_MAX_D;
    if (vec) {
        if (block_per_row) {
            launch<BS, true>(x, inv_rms, T, D, eps);
        } else {
            launch<32, true>(x, inv_rms, T, D, eps);
        }
    } else {
        if (block_per_row) {
            launch<BS, false>(x, inv_rms, T, D, eps);
        } else {
            launch<32, false>(x, inv_rms, T, D, eps);
        }
    }
}
