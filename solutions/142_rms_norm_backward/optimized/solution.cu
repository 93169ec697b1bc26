#include <cuda_runtime.h>
#include <stdint.h>

// Fused RMSNorm backward, one pass over x and dy.
//
// Main kernel: a persistent grid (occupancy-sized, a couple of blocks per SM) walks the rows with a
// grid stride. When C % 4 == 0 and the row fits, a row is held in registers as float4 vectors
// (TPR threads per row, VPT float4 per thread), so x and dy are read exactly once. The next row of
// the block is loaded before the current one is reduced, which keeps a full row per block in flight
// while the reduction and the dx stores run. One fused reduction gives sum(x^2) and sum(g * x).
// dweight is accumulated in registers for the columns a thread owns and written once per block to a
// (blocks x C) partials buffer; a second small kernel sums the partials. No atomics, deterministic.
//
// Other shapes (C % 4 != 0, C > 8192, misaligned pointers) use a scalar grid-stride kernel that
// keeps its dweight partials in the same buffer.

namespace {

constexpr unsigned FULL_MASK = 0xffffffffu;

// Threads per row TPR in {32, ..., 512}; small rows share a 256-thread block.
template <int TPR> struct RowCfg {
    static constexpr int BS = TPR < 256 ? 256 : TPR;
    static constexpr int RPB = BS / TPR; // rows per block iteration
    static constexpr int WPR = TPR / 32; // warps per row
    // 128 registers per thread: two 256-thread blocks or one 512-thread block per SM.
    static constexpr int MIN_BLOCKS = 512 / BS;
};

// Sums (a, b) over the TPR threads of one row. red is double-buffered by the caller so a single
// barrier per row suffices: a block cannot reuse a buffer before every thread has passed the
// barrier of the row in between.
template <int WPR>
__device__ __forceinline__ void row_sum2(float& a, float& b, float2* red, int slot) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(FULL_MASK, a, o);
        b += __shfl_xor_sync(FULL_MASK, b, o);
    }
    if (WPR > 1) {
        if ((threadIdx.x & 31) == 0) {
            red[threadIdx.x >> 5] = make_float2(a, b);
        }
        __syncthreads();
        a = 0.0f;
        b = 0.0f;
#pragma unroll
        for (int k = 0; k < WPR; ++k) {
            const float2 v = red[slot * WPR + k];
            a += v.x;
            b += v.y;
        }
    }
}

// 16-byte streaming load that yields zeros when !pred. A predicated PTX load instead of a branch
// keeps the prefetch in the same basic block as the arithmetic on the current row, so ptxas issues
// the loads first instead of behind that arithmetic. .cs: x and dy are read exactly once.
__device__ __forceinline__ float4 ldcs_pred(const float4* p, bool pred) {
    float4 v;
    asm volatile("{\n\t"
                 ".reg .pred q;\n\t"
                 "setp.ne.b32 q, %5, 0;\n\t"
                 "mov.f32 %0, 0f00000000;\n\t"
                 "mov.f32 %1, 0f00000000;\n\t"
                 "mov.f32 %2, 0f00000000;\n\t"
                 "mov.f32 %3, 0f00000000;\n\t"
                 "@q ld.global.cs.v4.f32 {%0, %1, %2, %3}, [%4];\n\t"
                 "}"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p), "r"((int)pred));
    return v;
}

template <int TPR, int VPT, bool EVEN>
__device__ __forceinline__ void load_row(const float4* __restrict__ x,
                                         const float4* __restrict__ dy, int row, int N, int C4,
                                         int lane, float4 (&xv)[VPT], float4 (&dv)[VPT]) {
    const bool row_ok = row < N;
    // Invalid rows are never dereferenced; clamp only to keep the address arithmetic in range.
    const size_t base = (size_t)(row_ok ? row : 0) * C4 + lane;
    const float4* xr = x + base;
    const float4* dr = dy + base;
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        const bool ok = row_ok && (EVEN || lane + k * TPR < C4);
        xv[k] = ldcs_pred(xr + k * TPR, ok);
        dv[k] = ldcs_pred(dr + k * TPR, ok);
    }
}

template <int TPR, int VPT, bool EVEN>
__global__ void __launch_bounds__(RowCfg<TPR>::BS, RowCfg<TPR>::MIN_BLOCKS)
    rms_bwd_rows(const float4* __restrict__ x, const float4* __restrict__ dy,
                 const float4* __restrict__ w, float4* __restrict__ dx, float4* __restrict__ part,
                 int N, int C4, float eps) {
    using Cfg = RowCfg<TPR>;
    __shared__ float2 red[2][Cfg::BS / 32];

    const int slot = threadIdx.x / TPR;
    const int lane = threadIdx.x % TPR;
    const int ngroups = (N + Cfg::RPB - 1) / Cfg::RPB;
    const float cf = (float)(4 * C4);
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

    float4 acc[VPT];
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        acc[k] = zero;
    }

    int g = blockIdx.x;
    int row = g * Cfg::RPB + slot;
    float4 xc[VPT];
    float4 dc[VPT];
    load_row<TPR, VPT, EVEN>(x, dy, row, N, C4, lane, xc, dc);

    int buf = 0;
    for (; g < ngroups; g += gridDim.x) {
        // Prefetch the block's next row before the reduction barrier (software pipelining).
        const int gn = g + (int)gridDim.x;
        const int nrow = gn < ngroups ? gn * Cfg::RPB + slot : N;
        float4 xn[VPT];
        float4 dn[VPT];
        load_row<TPR, VPT, EVEN>(x, dy, nrow, N, C4, lane, xn, dn);

        float ss = 0.0f;
        float dot = 0.0f;
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            // weight is re-read from L1 instead of being pinned in registers: the registers are
            // needed for the prefetched row.
            const int c = lane + k * TPR;
            const float4 wk = (EVEN || c < C4) ? __ldg(w + c) : zero;
            ss += xc[k].x * xc[k].x + xc[k].y * xc[k].y + xc[k].z * xc[k].z + xc[k].w * xc[k].w;
            dot += dc[k].x * wk.x * xc[k].x + dc[k].y * wk.y * xc[k].y + dc[k].z * wk.z * xc[k].z +
                   dc[k].w * wk.w * xc[k].w;
        }
        row_sum2<Cfg::WPR>(ss, dot, red[buf], slot);
        buf ^= 1;

        if (row < N) {
            const float r = 1.0f / sqrtf(ss / cf + eps);
            // Gradient through r: every element gets -x * r^3 * sum(g * x) / C.
            const float c3 = r * r * r * dot / cf;
            float4* dxr = dx + (size_t)row * C4;
#pragma unroll
            for (int k = 0; k < VPT; ++k) {
                const int c = lane + k * TPR;
                if (EVEN || c < C4) {
                    const float4 wk = __ldg(w + c);
                    float4 o;
                    o.x = r * (dc[k].x * wk.x) - c3 * xc[k].x;
                    o.y = r * (dc[k].y * wk.y) - c3 * xc[k].y;
                    o.z = r * (dc[k].z * wk.z) - c3 * xc[k].z;
                    o.w = r * (dc[k].w * wk.w) - c3 * xc[k].w;
                    __stcs(dxr + c, o); // dx is never re-read: do not keep it in cache
                    acc[k].x += dc[k].x * xc[k].x * r;
                    acc[k].y += dc[k].y * xc[k].y * r;
                    acc[k].z += dc[k].z * xc[k].z * r;
                    acc[k].w += dc[k].w * xc[k].w * r;
                }
            }
        }

#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            xc[k] = xn[k];
            dc[k] = dn[k];
        }
        row = nrow;
    }

    // One partial row per (block, row slot); slots that saw no rows write zeros.
    float4* pr = part + (size_t)(blockIdx.x * Cfg::RPB + slot) * C4;
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        const int c = lane + k * TPR;
        if (EVEN || c < C4) {
            pr[c] = acc[k];
        }
    }
}

constexpr int GEN_BS = 256;

// Any C and alignment. Thread t owns columns j = t (mod GEN_BS) of its block's partial row, so the
// read-modify-write of the partials needs no synchronisation.
__global__ void __launch_bounds__(GEN_BS)
    rms_bwd_generic(const float* __restrict__ x, const float* __restrict__ dy,
                    const float* __restrict__ w, float* __restrict__ dx, float* __restrict__ part,
                    int N, int C, float eps) {
    __shared__ float2 red[2][GEN_BS / 32];
    float* pr = part + (size_t)blockIdx.x * C;
    for (int j = threadIdx.x; j < C; j += GEN_BS) {
        pr[j] = 0.0f;
    }
    const float cf = (float)C;
    int buf = 0;
    for (int row = blockIdx.x; row < N; row += gridDim.x) {
        const float* xr = x + (size_t)row * C;
        const float* dr = dy + (size_t)row * C;
        float* dxr = dx + (size_t)row * C;
        float ss = 0.0f;
        float dot = 0.0f;
        for (int j = threadIdx.x; j < C; j += GEN_BS) {
            const float xv = xr[j];
            ss += xv * xv;
            dot += dr[j] * __ldg(w + j) * xv;
        }
        row_sum2<GEN_BS / 32>(ss, dot, red[buf], 0);
        buf ^= 1;
        const float r = 1.0f / sqrtf(ss / cf + eps);
        const float c3 = r * r * r * dot / cf;
        for (int j = threadIdx.x; j < C; j += GEN_BS) {
            const float xv = xr[j];
            const float dv = dr[j];
            dxr[j] = r * (dv * __ldg(w + j)) - c3 * xv;
            pr[j] += dv * xv * r;
        }
    }
}

constexpr int SUM_COLS = 32;
constexpr int SUM_LANES = 32;

// dweight[j] = sum over P partial rows. 32 columns x 32 row lanes per block: coalesced 128-byte
// loads, and enough independent loads in flight that the whole buffer is requested at once.
__global__ void __launch_bounds__(SUM_COLS* SUM_LANES)
    sum_partials(const float* __restrict__ part, float* __restrict__ dweight, int P, int C) {
    __shared__ float s[SUM_LANES][SUM_COLS + 1];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int j = blockIdx.x * SUM_COLS + tx;
    float acc = 0.0f;
    if (j < C) {
#pragma unroll 8
        for (int p = ty; p < P; p += SUM_LANES) {
            acc += part[(size_t)p * C + j];
        }
    }
    s[ty][tx] = acc;
    __syncthreads();
    // Warp ty finishes column ty of the tile with shuffles (the +1 pad avoids bank conflicts).
    float v = s[tx][ty];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_xor_sync(FULL_MASK, v, o);
    }
    const int jo = blockIdx.x * SUM_COLS + ty;
    if (tx == 0 && jo < C) {
        dweight[jo] = v; // overwrite, never accumulate onto the old contents
    }
}

int num_sms() {
    static int sms = 0;
    if (sms <= 0) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
            sms = 0;
        }
    }
    return sms;
}

// Partials buffer, allocated once and grown on demand.
float* partials(size_t elems) {
    static float* buf = nullptr;
    static size_t cap = 0;
    if (elems > cap) {
        if (buf != nullptr) {
            cudaFree(buf);
            buf = nullptr;
            cap = 0;
        }
        if (cudaMalloc(&buf, elems * sizeof(float)) != cudaSuccess) {
            buf = nullptr;
            return nullptr;
        }
        cap = elems;
    }
    return buf;
}

bool launch_sum(const float* part, float* dweight, int P, int C) {
    const dim3 block(SUM_COLS, SUM_LANES);
    sum_partials<<<(C + SUM_COLS - 1) / SUM_COLS, block>>>(part, dweight, P, C);
    return cudaGetLastError() == cudaSuccess;
}

// Resident blocks per SM for a kernel, queried once per kernel.
template <typename K> int blocks_per_sm(K kernel, int bs, int& cache) {
    if (cache <= 0) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cache, kernel, bs, 0) != cudaSuccess ||
            cache <= 0) {
            cache = 1;
        }
    }
    return cache;
}

template <int TPR, int VPT, bool EVEN>
bool launch_rows(const float* x, const float* dy, const float* w, float* dx, float* dweight, int N,
                 int C, float eps, int sms) {
    using Cfg = RowCfg<TPR>;
    static int occ = 0;
    const int per_sm = blocks_per_sm(rms_bwd_rows<TPR, VPT, EVEN>, Cfg::BS, occ);
    const int ngroups = (N + Cfg::RPB - 1) / Cfg::RPB;
    const int grid = ngroups < per_sm * sms ? ngroups : per_sm * sms;
    const int P = grid * Cfg::RPB;
    float* part = partials((size_t)P * C);
    if (part == nullptr) {
        return false;
    }
    rms_bwd_rows<TPR, VPT, EVEN>
        <<<grid, Cfg::BS>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<const float4*>(dy),
                            reinterpret_cast<const float4*>(w), reinterpret_cast<float4*>(dx),
                            reinterpret_cast<float4*>(part), N, C / 4, eps);
    if (cudaGetLastError() != cudaSuccess) {
        return false;
    }
    return launch_sum(part, dweight, P, C);
}

template <int TPR, int VPT>
bool launch_vec(const float* x, const float* dy, const float* w, float* dx, float* dweight, int N,
                int C, float eps, int sms) {
    if (C / 4 == TPR * VPT) {
        return launch_rows<TPR, VPT, true>(x, dy, w, dx, dweight, N, C, eps, sms);
    }
    return launch_rows<TPR, VPT, false>(x, dy, w, dx, dweight, N, C, eps, sms);
}

bool launch_generic(const float* x, const float* dy, const float* w, float* dx, float* dweight,
                    int N, int C, float eps, int sms) {
    static int occ = 0;
    const int per_sm = blocks_per_sm(rms_bwd_generic, GEN_BS, occ);
    const int grid = N < per_sm * sms ? N : per_sm * sms;
    float* part = partials((size_t)grid * C);
    if (part == nullptr) {
        return false;
    }
    rms_bwd_generic<<<grid, GEN_BS>>>(x, dy, w, dx, part, N, C, eps);
    if (cudaGetLastError() != cudaSuccess) {
        return false;
    }
    return launch_sum(part, dweight, grid, C);
}

} // namespace

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
    const int sms = num_sms();
    if (sms <= 0) {
        return;
    }

    const uintptr_t addr_bits = reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(dy) |
                                reinterpret_cast<uintptr_t>(weight) |
                                reinterpret_cast<uintptr_t>(dx);
    const int C4 = C / 4;
    bool ok;
    if (C % 4 != 0 || (addr_bits & 15) != 0 || C4 > 2048) {
        ok = launch_generic(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else if (C4 <= 64) {
        ok = launch_vec<32, 2>(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else if (C4 <= 128) {
        ok = launch_vec<32, 4>(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else if (C4 <= 256) {
        ok = launch_vec<64, 4>(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else if (C4 <= 512) {
        ok = launch_vec<128, 4>(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else if (C4 <= 1024) {
        ok = launch_vec<256, 4>(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else {
        ok = launch_vec<512, 4>(x, dy, weight, dx, dweight, N, C, eps, sms);
    }
    if (!ok) {
        return;
    }
    cudaDeviceSynchronize();
}
