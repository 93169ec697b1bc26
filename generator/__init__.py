"""chgen: describe a GPU programming challenge once, in YAML; generate and prove everything else."""

__version__ = "0.1.0"
