import torch


# x, dy, weight, dx, dweight are tensors on the GPU
def solve(
    x: torch.Tensor,
    dy: torch.Tensor,
    weight: torch.Tensor,
    dx: torch.Tensor,
    dweight: torch.Tensor,
    N: int,
    C: int,
    eps: float,
):
    """One rank of several: x, dy and dx hold this rank's N rows.
    weight is whole on every rank.
    dweight must end whole and identical on every rank.

    torch.distributed is initialised before solve is called: dist.get_rank(),
    dist.get_world_size() and collectives on the default group reach the other ranks.
    """
    pass
