"""Base class of every challenge, and declarative descriptors for test inputs.

A challenge subclasses ChallengeBase, sets the five class attributes and implements the five
methods. Tests are dicts in solve-signature order; tensors are created on `self.device`.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Dict, List, Tuple


@dataclass
class _Described:
    shape: Tuple[int, ...]

    def __post_init__(self):
        self.shape = tuple(int(d) for d in self.shape)


@dataclass
class RandTensor(_Described):
    """Uniform random input in [low, high)."""

    low: float = 0.0
    high: float = 1.0
    dtype: str = "float32"


@dataclass
class RandnTensor(_Described):
    """Normal random input with the given mean and standard deviation."""

    mean: float = 0.0
    std: float = 1.0
    dtype: str = "float32"


@dataclass
class RandIntTensor(_Described):
    """Uniform random integers in [low, high)."""

    low: int = 0
    high: int = 2
    dtype: str = "int32"


@dataclass
class FullTensor(_Described):
    """Input filled with one value (zeros, ones, any constant)."""

    value: float = 0.0
    dtype: str = "float32"


@dataclass
class OutTensor(_Described):
    """Output buffer of a shape: allocated where solve writes in place, absent where it returns."""

    dtype: str = "float32"


class ChallengeBase(ABC):
    name: str
    atol: float
    rtol: float
    num_gpus: int
    access_tier: str

    def __init__(self, device: str = "cuda"):
        self.device = device

    @abstractmethod
    def reference_impl(self, *args, **kwargs):
        """Compute the expected outputs in place."""

    @abstractmethod
    def get_solve_signature(self) -> Dict[str, Any]:
        """Parameter name -> (ctypes type, "in" | "out" | "inout"), in solve order."""

    @abstractmethod
    def generate_example_test(self) -> Dict[str, Any]:
        """The worked example shown in challenge.html."""

    @abstractmethod
    def generate_functional_test(self) -> List[Dict[str, Any]]:
        """The correctness cases."""

    @abstractmethod
    def generate_performance_test(self) -> Dict[str, Any]:
        """The case that is timed."""
