def solve(x, dy, weight, dx, dweight, N, C, eps):
    # Plainly wrong: a control judged right after the cache-poisoning attempt.
    dx.fill_(1.0)
    dweight.fill_(1.0)
