def solution(x, dy, weight, dx, dweight, N, C, eps):
    pass
