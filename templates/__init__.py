"""chgen's templates, shipped in the wheel as the package `generator.templates` (data only)."""
