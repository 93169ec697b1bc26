import sys


def solve(x, dy, weight, dx, dweight, N, C, eps):
    sys.exit(3)
