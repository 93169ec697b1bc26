#include <cuda_runtime.h>

// input, histogram are device pointers
extern "C" void solve(const int* input, int* histogram, int N, int num_bins) {}
