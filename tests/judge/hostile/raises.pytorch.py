def solve(x, dy, weight, dx, dweight, N, C, eps):
    raise RuntimeError("this solution gives up")
