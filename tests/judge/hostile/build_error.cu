#include <cuda_runtime.h>

extern "C" void solve(const float* x, const float* dy, const float* weight, float* dx,
                      float* dweight, int N, int C, float eps) {
    launch_the_kernel_that_does_not_exist(x, dx);
}
