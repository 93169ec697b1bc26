@export
def solve(
    x: Pointer[Float32, ImmUntrackedOrigin],
    dx: Pointer[Float32, MutUntrackedOrigin],
    N: Int32,
) abi("C"):
    var count: Int32 = "not a number"
