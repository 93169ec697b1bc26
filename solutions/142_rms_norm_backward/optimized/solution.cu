#include <cuda_runtime.h>
#include <stdint.h>

// RMSNorm backward in one pass over x and dy and one write of dx.
//
// Main path (C % 4 == 0, C <= 8192, 16-byte aligned tensors): rows live in registers. TPR threads
// own one row, two float4 of x and two of dy each (TPR = 512 for C = 4096), so a block of BS
// threads holds BS / TPR rows per step. A persistent grid of 1024 threads per SM (two 512-thread
// blocks, or one 1024-thread block for the widest rows) walks the rows with a grid stride. Per
// row: the loads, one fused block reduction giving sum(x^2) and sum(g * x), and dx computed and
// stored straight from the registers. The weight and the dweight partial sums of a thread's
// columns stay in registers for the whole kernel.
// There is no prefetch of the next row: the two resident blocks of an SM overlap one's loads with
// the other's reduction and stores. That measured at least as fast as keeping 1-3 rows of loads
// in flight in registers or through shared-memory pipelines, with fewer registers (56).
//
// dweight: every row slot of every block writes its partial row once at the end, and a second
// small kernel sums the partial rows, overwriting dweight. No atomics: the result is
// deterministic.
//
// Other shapes (C % 4 != 0, misaligned pointers, C > 8192) take a scalar grid-stride kernel that
// keeps its partial row in the same scratch buffer.
//
// Everything is queued on the default stream; solve returns without waiting for the GPU.

namespace {

constexpr unsigned FULL_MASK = 0xffffffffu;

// float4 of x (and of dy) per thread and row.
constexpr int VPT = 2;

// TPR threads per row, a power of two in [32, 1024].
template <int TPR> struct RowCfg {
    static constexpr int BS = TPR < 512 ? 512 : TPR; // threads per block
    static constexpr int RPB = BS / TPR;             // rows per block step
    static constexpr int WARPS = BS / 32;
    static constexpr int WPR = TPR / 32; // warps per row
    // 1024 resident threads per SM: at most 64 registers per thread.
    static constexpr int MIN_BLOCKS = 1024 / BS;
};

__device__ __forceinline__ float4 f4_zero() {
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// 16-byte load that yields zeros when !pred. Predicated PTX instead of a branch keeps all of a
// row's loads in one basic block, so they are issued back to back before any result is used.
__device__ __forceinline__ float4 ld4(const float4* p, bool pred) {
    float4 v;
    asm volatile("{\n\t"
                 ".reg .pred q;\n\t"
                 "setp.ne.b32 q, %5, 0;\n\t"
                 "mov.f32 %0, 0f00000000;\n\t"
                 "mov.f32 %1, 0f00000000;\n\t"
                 "mov.f32 %2, 0f00000000;\n\t"
                 "mov.f32 %3, 0f00000000;\n\t"
                 "@q ld.global.v4.f32 {%0, %1, %2, %3}, [%4];\n\t"
                 "}"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p), "r"((int)pred)
                 : "memory");
    return v;
}

__device__ __forceinline__ float2 warp_sum2(float2 v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        v.x += __shfl_xor_sync(FULL_MASK, v.x, o);
        v.y += __shfl_xor_sync(FULL_MASK, v.y, o);
    }
    return v;
}

// Sum of (a, b) over the TPR threads of a row; every thread of the row gets identical totals
// (butterflies). red is double-buffered by the caller, so one barrier per row step suffices: a
// block cannot reuse a buffer before every thread has passed the barrier of the step in between.
template <int TPR> __device__ __forceinline__ float2 row_sum2(float a, float b, float2* red) {
    using Cfg = RowCfg<TPR>;
    float2 v = warp_sum2(make_float2(a, b));
    if (Cfg::WPR == 1) {
        return v;
    }
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) {
        red[warp] = v;
    }
    __syncthreads();
    // The warps of this row are warp - warp % WPR, ..., + WPR - 1.
    const int first = warp - warp % Cfg::WPR;
    return warp_sum2(lane < Cfg::WPR ? red[first + lane] : make_float2(0.0f, 0.0f));
}

// Persistent kernel: block b handles row groups b, b + G, ... (RPB rows each, one per slot).
template <int TPR>
__global__ void __launch_bounds__(RowCfg<TPR>::BS, RowCfg<TPR>::MIN_BLOCKS)
    rms_bwd_rows(const float4* __restrict__ x, const float4* __restrict__ dy,
                 const float4* __restrict__ w, float4* __restrict__ dx, float4* __restrict__ part,
                 int N, int C4, float eps) {
    using Cfg = RowCfg<TPR>;
    __shared__ float2 red[2][Cfg::WARPS];

    const int slot = threadIdx.x / TPR;
    const int lane = threadIdx.x % TPR;
    const int groups = (N + Cfg::RPB - 1) / Cfg::RPB;
    const float cf = (float)(4 * C4);

    float4 wr[VPT];
    float4 acc[VPT];
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
        const int c = lane + j * TPR;
        wr[j] = c < C4 ? w[c] : f4_zero();
        acc[j] = f4_zero();
    }

    int buf = 0;
    for (int g = blockIdx.x; g < groups; g += gridDim.x) {
        const int row = g * Cfg::RPB + slot;
        const bool ok = row < N;
        // Rows past N are never dereferenced; clamp only to keep the address arithmetic in range.
        const size_t base = (size_t)(ok ? row : 0) * C4;
        float4 xv[VPT];
        float4 dv[VPT];
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            const int c = lane + j * TPR;
            const bool pred = ok && c < C4;
            xv[j] = ld4(x + base + c, pred);
            dv[j] = ld4(dy + base + c, pred);
        }

        float ss = 0.0f;
        float dot = 0.0f;
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            ss += xv[j].x * xv[j].x + xv[j].y * xv[j].y + xv[j].z * xv[j].z + xv[j].w * xv[j].w;
            dot += dv[j].x * wr[j].x * xv[j].x + dv[j].y * wr[j].y * xv[j].y +
                   dv[j].z * wr[j].z * xv[j].z + dv[j].w * wr[j].w * xv[j].w;
        }
        const float2 tot = row_sum2<TPR>(ss, dot, red[buf]);
        buf ^= 1;

        if (ok) {
            const float r = 1.0f / sqrtf(tot.x / cf + eps);
            // Gradient through r: every element gets -x * r^3 * sum(g * x) / C.
            const float c3 = r * r * r * tot.y / cf;
            float4* dxr = dx + (size_t)row * C4;
#pragma unroll
            for (int j = 0; j < VPT; ++j) {
                const int c = lane + j * TPR;
                if (c < C4) {
                    float4 o;
                    o.x = r * (dv[j].x * wr[j].x) - c3 * xv[j].x;
                    o.y = r * (dv[j].y * wr[j].y) - c3 * xv[j].y;
                    o.z = r * (dv[j].z * wr[j].z) - c3 * xv[j].z;
                    o.w = r * (dv[j].w * wr[j].w) - c3 * xv[j].w;
                    __stcs(dxr + c, o); // dx is never re-read: do not keep it in cache
                    acc[j].x += dv[j].x * xv[j].x * r;
                    acc[j].y += dv[j].y * xv[j].y * r;
                    acc[j].z += dv[j].z * xv[j].z * r;
                    acc[j].w += dv[j].w * xv[j].w * r;
                }
            }
        }
    }

    // One partial row per (block, slot); a slot that saw no rows writes zeros.
    float4* pr = part + (size_t)(blockIdx.x * Cfg::RPB + slot) * C4;
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
        const int c = lane + j * TPR;
        if (c < C4) {
            pr[c] = acc[j];
        }
    }
}

constexpr int GEN_BS = 256;
constexpr int GEN_WARPS = GEN_BS / 32;

// Any C and alignment. Thread t owns columns j = t (mod GEN_BS) of its block's partial row, so the
// read-modify-write of the partials needs no synchronisation.
__global__ void __launch_bounds__(GEN_BS)
    rms_bwd_generic(const float* __restrict__ x, const float* __restrict__ dy,
                    const float* __restrict__ w, float* __restrict__ dx, float* __restrict__ part,
                    int N, int C, float eps) {
    __shared__ float2 red[2][GEN_WARPS];
    float* pr = part + (size_t)blockIdx.x * C;
    for (int j = threadIdx.x; j < C; j += GEN_BS) {
        pr[j] = 0.0f;
    }
    const int lane = threadIdx.x & 31;
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
            dot += dr[j] * w[j] * xv;
        }
        float2 tot = warp_sum2(make_float2(ss, dot));
        if (lane == 0) {
            red[buf][threadIdx.x >> 5] = tot;
        }
        __syncthreads();
        tot = warp_sum2(lane < GEN_WARPS ? red[buf][lane] : make_float2(0.0f, 0.0f));
        buf ^= 1;
        const float r = 1.0f / sqrtf(tot.x / cf + eps);
        const float c3 = r * r * r * tot.y / cf;
        for (int j = threadIdx.x; j < C; j += GEN_BS) {
            const float xv = xr[j];
            const float dv = dr[j];
            dxr[j] = r * (dv * w[j]) - c3 * xv;
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

// ------------------------------------------------------------------ host side

// SM count, queried on the first call only.
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

// Partials buffer, allocated on the first call (at least 8 MB: enough for 264 partial rows of
// 4096 columns, so the performance case never grows it) and grown only when a larger one is
// needed.
float* partials(size_t elems) {
    static float* buf = nullptr;
    static size_t cap = 0;
    if (elems > cap) {
        if (buf != nullptr) {
            cudaFree(buf); // waits for the kernels that may still use it
            buf = nullptr;
            cap = 0;
        }
        const size_t want = elems > ((size_t)1 << 21) ? elems : ((size_t)1 << 21);
        if (cudaMalloc(&buf, want * sizeof(float)) != cudaSuccess) {
            buf = nullptr;
            return nullptr;
        }
        cap = want;
    }
    return buf;
}

bool launch_sum(const float* part, float* dweight, int P, int C) {
    const dim3 block(SUM_COLS, SUM_LANES);
    sum_partials<<<(C + SUM_COLS - 1) / SUM_COLS, block>>>(part, dweight, P, C);
    return cudaGetLastError() == cudaSuccess;
}

template <int TPR>
bool launch_rows(const float* x, const float* dy, const float* w, float* dx, float* dweight, int N,
                 int C, float eps, int sms) {
    using Cfg = RowCfg<TPR>;
    const int groups = (N + Cfg::RPB - 1) / Cfg::RPB;
    const int cap = Cfg::MIN_BLOCKS * sms; // resident by the launch bounds
    const int grid = groups < cap ? groups : cap;
    const int P = grid * Cfg::RPB;
    float* part = partials((size_t)P * C);
    if (part == nullptr) {
        return false;
    }
    rms_bwd_rows<TPR>
        <<<grid, Cfg::BS>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<const float4*>(dy),
                            reinterpret_cast<const float4*>(w), reinterpret_cast<float4*>(dx),
                            reinterpret_cast<float4*>(part), N, C / 4, eps);
    if (cudaGetLastError() != cudaSuccess) {
        return false;
    }
    return launch_sum(part, dweight, P, C);
}

bool launch_generic(const float* x, const float* dy, const float* w, float* dx, float* dweight,
                    int N, int C, float eps, int sms) {
    const int cap = 4 * sms;
    const int grid = N < cap ? N : cap;
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
        cudaMemsetAsync(dweight, 0, (size_t)C * sizeof(float)); // an empty sum
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
    if (C % 4 != 0 || (addr_bits & 15) != 0 || C4 > 1024 * VPT) {
        launch_generic(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else if (C4 <= 32 * VPT) {
        launch_rows<32>(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else if (C4 <= 64 * VPT) {
        launch_rows<64>(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else if (C4 <= 128 * VPT) {
        launch_rows<128>(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else if (C4 <= 256 * VPT) {
        launch_rows<256>(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else if (C4 <= 512 * VPT) {
        launch_rows<512>(x, dy, weight, dx, dweight, N, C, eps, sms);
    } else {
        launch_rows<1024>(x, dy, weight, dx, dweight, N, C, eps, sms);
    }
}
