// Row inverse RMS (challenge 143) design variants for the tuning sweep; one configuration per
// build.
//
// All variants need D % 8 == 0, D <= 16384 and a 16-byte aligned x (16-byte loads of 8 bf16).
//   LOADER 0: registers. BPS 0: one block per ROWS rows (1 or 2), every row loaded at once (VPT
//             loads per thread and row, all issued before the first is used), one block
//             reduction for all of them. BPS > 0: persistent grid, rows b, b + G, ..., PF rows
//             loaded ahead.
//   LOADER 1: persistent, cp.async into NS shared-memory stages, thread-owned slots.
//   LOADER 2: persistent, bulk copies (TMA engine) of whole rows into NS stages on mbarriers.
//   LOADER 3: one warp per row, UNROLL 16-byte loads per lane in flight, BS / 32 rows per block.
// The sum of squares is accumulated in fp32 straight from bf16 (a 16-bit shift): pairwise inside
// each 16-byte vector, separate per-vector partials folded as a tree, then warp and block trees;
// the fp32 total is finished in fp64 (mean, sqrt, reciprocal) and rounded to fp32 once.
//
// Macros: LOADER, BS, PF, NS, BPS, UNROLL, ROWS, LDH (0 none, 1 evict-first/streaming,
// 2 ld.global.nc.L1::no_allocate or cp.async .L2::256B, 3 ld.global.nc.L1::no_allocate.L2::256B,
// 4 ld.global.L2::256B), MINB (minimum resident blocks per SM for the launch bounds; 0: derived
// from the registers the variant needs).

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#ifndef LOADER
#define LOADER 2
#endif
#ifndef BS
#define BS 512
#endif
#ifndef PF
#define PF 1
#endif
#ifndef NS
#define NS 4
#endif
#ifndef BPS
#define BPS 1
#endif
#ifndef UNROLL
#define UNROLL 8
#endif
#ifndef LDH
#define LDH 0
#endif
#ifndef ROWS
#define ROWS 1
#endif
#ifndef MINB
#define MINB 0
#endif

namespace {

constexpr unsigned FULL_MASK = 0xffffffffu;
constexpr int MAX_D8 = 2048;
constexpr int VPT = LOADER == 3 ? UNROLL : MAX_D8 / BS;
constexpr int WARPS = BS / 32;
constexpr int STAGE_BYTES = MAX_D8 * 16;
constexpr int USE_STAGES = LOADER == 1 || LOADER == 2 ? NS : 0;

static_assert(LOADER == 3 || BS * VPT == MAX_D8, "BS must divide 2048");
static_assert(VPT <= 16, "too many vectors per thread");
static_assert(ROWS == 1 || (LOADER == 0 && BPS == 0), "ROWS > 1 only for a block per row");

__device__ __forceinline__ float sq8(uint4 v) {
    const float a0 = __uint_as_float(v.x << 16), a1 = __uint_as_float(v.x & 0xffff0000u);
    const float a2 = __uint_as_float(v.y << 16), a3 = __uint_as_float(v.y & 0xffff0000u);
    const float a4 = __uint_as_float(v.z << 16), a5 = __uint_as_float(v.z & 0xffff0000u);
    const float a6 = __uint_as_float(v.w << 16), a7 = __uint_as_float(v.w & 0xffff0000u);
    return ((a0 * a0 + a1 * a1) + (a2 * a2 + a3 * a3)) +
           ((a4 * a4 + a5 * a5) + (a6 * a6 + a7 * a7));
}

// Tree over the VPT per-vector partials.
__device__ __forceinline__ float fold(float (&p)[VPT]) {
#pragma unroll
    for (int h = 1; h < VPT; h <<= 1) {
#pragma unroll
        for (int u = 0; u + h < VPT; u += 2 * h) {
            p[u] += p[u + h];
        }
    }
    return p[0];
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_xor_sync(FULL_MASK, v, o);
    }
    return v;
}

#if LOADER != 3 && !(LOADER == 0 && BPS == 0)
// Block total (identical in every thread); red is double-buffered by the caller.
__device__ __forceinline__ float block_sum(float v, float* red) {
    const int lane = threadIdx.x & 31;
    v = warp_sum(v);
    if (lane == 0) {
        red[threadIdx.x >> 5] = v;
    }
    __syncthreads();
    return warp_sum(lane < WARPS ? red[lane] : 0.0f);
}
#endif

#if LOADER == 0 || LOADER == 3
__device__ __forceinline__ uint4 ld16_pred(const uint4* p, bool pred) {
    uint4 v;
#if LDH == 1
#define LD_OP "ld.global.cs.v4.u32"
#elif LDH == 2
#define LD_OP "ld.global.nc.L1::no_allocate.v4.u32"
#elif LDH == 3
#define LD_OP "ld.global.nc.L1::no_allocate.L2::256B.v4.u32"
#elif LDH == 4
#define LD_OP "ld.global.L2::256B.v4.u32"
#else
#define LD_OP "ld.global.v4.u32"
#endif
    asm volatile("{\n\t"
                 ".reg .pred q;\n\t"
                 "setp.ne.b32 q, %5, 0;\n\t"
                 "mov.u32 %0, 0;\n\t"
                 "mov.u32 %1, 0;\n\t"
                 "mov.u32 %2, 0;\n\t"
                 "mov.u32 %3, 0;\n\t"
                 "@q " LD_OP " {%0, %1, %2, %3}, [%4];\n\t"
                 "}"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "r"((int)pred)
                 : "memory");
#undef LD_OP
    return v;
}
#endif

#if LOADER == 1 || LOADER == 2
__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
#endif

#if (LOADER == 1 || LOADER == 2) && LDH == 1
__device__ __forceinline__ uint64_t evict_first_policy() {
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
#endif

#if LOADER == 1
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, uint64_t pol) {
#if LDH == 1
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(dst),
                 "l"(src), "l"(pol)
                 : "memory");
#elif LDH == 2
    (void)pol;
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(dst), "l"(src)
                 : "memory");
#else
    (void)pol;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
#endif
}

__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int N> __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
#endif

#if LOADER == 2
__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count)
                 : "memory");
}

__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
                 "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void mbar_wait(uint64_t* bar, unsigned parity) {
    const unsigned addr = smem_u32(bar);
    unsigned done = 0;
    do {
        asm volatile("{\n\t"
                     ".reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t"
                     "}"
                     : "=r"(done)
                     : "r"(addr), "r"(parity)
                     : "memory");
    } while (!done);
}

__device__ __forceinline__ void bulk_g2s(void* dst, const void* src, unsigned bytes, uint64_t* bar,
                                         uint64_t pol) {
#if LDH == 1
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
                 " [%0], [%1], %2, [%3], %4;" ::"r"(smem_u32(dst)),
                 "l"(src), "r"(bytes), "r"(smem_u32(bar)), "l"(pol)
                 : "memory");
#else
    (void)pol;
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];" ::"r"(smem_u32(dst)),
                 "l"(src), "r"(bytes), "r"(smem_u32(bar))
                 : "memory");
#endif
}
#endif

// 1 / sqrt(total / D + eps) in fp64, rounded to fp32 once.
__device__ __forceinline__ float finish(float total, int D, float eps) {
    const double mean = (double)total / (double)D;
    return (float)(1.0 / sqrt(mean + (double)eps));
}

// Register budget for ptxas: with no minimum it aims low and interleaves the loads with the math
// (few in flight). Non-persistent kernels get room for every vector of a thread plus ~24 others.
constexpr int regs_wanted() {
    return 4 * VPT * ROWS * (LOADER == 0 && BPS > 0 ? PF + 1 : 1) + 24;
}
constexpr int clamp_blocks(int b) {
    return b < 1 ? 1 : (b > 2048 / BS ? 2048 / BS : b);
}
constexpr int MIN_BLOCKS = MINB > 0                   ? MINB
                           : (BPS < 1 || LOADER == 3) ? clamp_blocks(65536 / (BS * regs_wanted()))
                                                      : BPS;

#if LOADER == 3
__global__ void __launch_bounds__(BS, MIN_BLOCKS)
    inv_rms(const uint4* __restrict__ x, float* __restrict__ out, int T, int D, float eps) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * WARPS + (threadIdx.x >> 5);
    if (row >= T) {
        return;
    }
    const int D8 = D / 8;
    const uint4* xr = x + (size_t)row * D8;
    float part[VPT];
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        part[u] = 0.0f;
    }
    for (int base = lane; base < D8; base += 32 * VPT) {
        uint4 v[VPT];
#pragma unroll
        for (int u = 0; u < VPT; ++u) {
            const int c = base + u * 32;
            v[u] = ld16_pred(xr + c, c < D8);
        }
#pragma unroll
        for (int u = 0; u < VPT; ++u) {
            part[u] += sq8(v[u]);
        }
    }
    const float total = warp_sum(fold(part));
    if (lane == 0) {
        out[row] = finish(total, D, eps);
    }
}
#elif LOADER == 0 && BPS == 0
__global__ void __launch_bounds__(BS, MIN_BLOCKS)
    inv_rms(const uint4* __restrict__ x, float* __restrict__ out, int T, int D, float eps) {
    __shared__ float red[ROWS][WARPS];
    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int D8 = D / 8;
    const int row0 = blockIdx.x * ROWS;
    // Every load of every row of the block first (the second row's loads are in flight while the
    // first row is reduced), then one block reduction for all rows.
    uint4 v[ROWS][VPT];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const bool ok = row0 + r < T;
        const uint4* xr = x + (size_t)(ok ? row0 + r : 0) * D8;
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            const int c = tid + j * BS;
            v[r][j] = ld16_pred(xr + c, ok && c < D8);
        }
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        float part[VPT];
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            part[j] = sq8(v[r][j]);
        }
        const float w = warp_sum(fold(part));
        if (lane == 0) {
            red[r][tid >> 5] = w;
        }
    }
    __syncthreads();
    if (tid < 32) {
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const float total = warp_sum(lane < WARPS ? red[r][lane] : 0.0f);
            if (lane == 0 && row0 + r < T) {
                out[row0 + r] = finish(total, D, eps);
            }
        }
    }
}
#else
__global__ void __launch_bounds__(BS, MIN_BLOCKS)
    inv_rms(const uint4* __restrict__ x, float* __restrict__ out, int T, int D, float eps) {
    extern __shared__ __align__(128) uint4 smem[];
    __shared__ float red[2][WARPS];
#if LOADER == 2
    __shared__ __align__(8) uint64_t full[NS];
#endif
    const int tid = threadIdx.x;
    const int G = gridDim.x;
    const int D8 = D / 8;
#if (LOADER == 1 || LOADER == 2) && LDH == 1
    const uint64_t pol = evict_first_policy();
#elif LOADER == 1 || LOADER == 2
    const uint64_t pol = 0;
#endif
    int row = blockIdx.x;

#if LOADER == 0
    uint4 q[PF + 1][VPT];
#pragma unroll
    for (int p = 0; p < PF; ++p) {
        const int r = row + p * G;
        const bool ok = r < T;
        const uint4* xr = x + (size_t)(ok ? r : 0) * D8;
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            const int c = tid + j * BS;
            q[p][j] = ld16_pred(xr + c, ok && c < D8);
        }
    }
#elif LOADER == 1
    const unsigned sbase = smem_u32(smem);
#pragma unroll
    for (int s = 0; s < NS; ++s) {
        const int r = row + s * G;
        if (r < T) {
            const uint4* xr = x + (size_t)r * D8;
#pragma unroll
            for (int j = 0; j < VPT; ++j) {
                const int c = tid + j * BS;
                if (c < D8) {
                    cp_async16(sbase + ((s * VPT + j) * BS + tid) * 16, xr + c, pol);
                }
            }
        }
        cp_async_commit();
    }
#else
    if (tid == 0) {
#pragma unroll
        for (int s = 0; s < NS; ++s) {
            mbar_init(&full[s], 1);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    const unsigned row_bytes = (unsigned)D8 * 16u;
    if (tid == 0) {
        for (int s = 0; s < NS; ++s) {
            const int r = row + s * G;
            if (r < T) {
                mbar_expect_tx(&full[s], row_bytes);
                bulk_g2s(smem + (size_t)s * D8, x + (size_t)r * D8, row_bytes, &full[s], pol);
            }
        }
    }
#endif

    int buf = 0;
    for (int k = 0; row < T; ++k, row += G) {
        uint4 v[VPT];
#if LOADER == 0
        {
            const int r = row + PF * G;
            const bool ok = r < T;
            const uint4* xr = x + (size_t)(ok ? r : 0) * D8;
#pragma unroll
            for (int j = 0; j < VPT; ++j) {
                const int c = tid + j * BS;
                q[PF][j] = ld16_pred(xr + c, ok && c < D8);
            }
        }
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            v[j] = q[0][j];
        }
#pragma unroll
        for (int p = 0; p < PF; ++p) {
#pragma unroll
            for (int j = 0; j < VPT; ++j) {
                q[p][j] = q[p + 1][j];
            }
        }
#elif LOADER == 1
        {
            cp_async_wait<NS - 1>();
            const int s = k % NS;
#pragma unroll
            for (int j = 0; j < VPT; ++j) {
                const int c = tid + j * BS;
                v[j] = c < D8 ? smem[(s * VPT + j) * BS + tid] : make_uint4(0u, 0u, 0u, 0u);
            }
            const int r = row + NS * G;
            if (r < T) {
                const uint4* xr = x + (size_t)r * D8;
#pragma unroll
                for (int j = 0; j < VPT; ++j) {
                    const int c = tid + j * BS;
                    if (c < D8) {
                        cp_async16(sbase + ((s * VPT + j) * BS + tid) * 16, xr + c, pol);
                    }
                }
            }
            cp_async_commit();
        }
#else
        const int s = k % NS;
        mbar_wait(&full[s], (unsigned)(k / NS) & 1u);
        {
            const uint4* sx = smem + (size_t)s * D8;
#pragma unroll
            for (int j = 0; j < VPT; ++j) {
                const int c = tid + j * BS;
                v[j] = c < D8 ? sx[c] : make_uint4(0u, 0u, 0u, 0u);
            }
        }
#endif
        float part[VPT];
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            part[j] = sq8(v[j]);
        }
        const float total = block_sum(fold(part), red[buf]);
        buf ^= 1;
#if LOADER == 2
        if (tid == 0) {
            const int r = row + NS * G;
            if (r < T) {
                mbar_expect_tx(&full[s], row_bytes);
                bulk_g2s(smem + (size_t)s * D8, x + (size_t)r * D8, row_bytes, &full[s], pol);
            }
        }
#endif
        if (tid == 0) {
            out[row] = finish(total, D, eps);
        }
    }
#if LOADER == 1
    cp_async_wait<0>();
#endif
}
#endif

size_t dyn_smem_bytes() {
    return (size_t)USE_STAGES * STAGE_BYTES;
}

struct State {
    int sms = 0;
    int occ = 0;
};

State& state() {
    static State st;
    if (st.sms == 0) {
        int dev = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&st.sms, cudaDevAttrMultiProcessorCount, dev);
        const size_t smem = dyn_smem_bytes();
        if (smem > 0) {
            cudaFuncSetAttribute(inv_rms, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        }
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&st.occ, inv_rms, BS, smem);
    }
    return st;
}

int grid_for(int T) {
    const State& st = state();
    if (LOADER == 3) {
        return (T + WARPS - 1) / WARPS;
    }
    if (BPS == 0) {
        return (T + ROWS - 1) / ROWS;
    }
    const int per_sm = st.occ < BPS ? st.occ : BPS;
    const int cap = per_sm * st.sms;
    return T < cap ? T : cap;
}

int run(const __nv_bfloat16* x, float* inv_rms_out, int T, int D, float eps) {
    const State& st = state();
    if (st.occ <= 0 || D % 8 != 0 || D / 8 > MAX_D8 || T <= 0 ||
        (reinterpret_cast<uintptr_t>(x) & 15) != 0) {
        return 1;
    }
    const int grid = grid_for(T);
    inv_rms<<<grid, BS, dyn_smem_bytes()>>>(reinterpret_cast<const uint4*>(x), inv_rms_out, T, D,
                                            eps);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}

} // namespace

// Queues the work and returns, like the solutions (the caller synchronises).
extern "C" int solve(const __nv_bfloat16* x, float* inv_rms_out, int T, int D, float eps) {
    return run(x, inv_rms_out, T, D, eps);
}

// info: registers, local (spill) bytes, static smem, dynamic smem, resident blocks per SM, grid.
extern "C" int variant_info(int* info) {
    const State& st = state();
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, inv_rms) != cudaSuccess) {
        return 1;
    }
    info[0] = attr.numRegs;
    info[1] = (int)attr.localSizeBytes;
    info[2] = (int)attr.sharedSizeBytes;
    info[3] = (int)dyn_smem_bytes();
    info[4] = st.occ;
    info[5] = grid_for(8192);
    return 0;
}
