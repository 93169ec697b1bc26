"""What the language adapters build, load and call with: compilers found and run, solutions
imported and bound to a case's tensors.

Below both `generator.languages` (whose adapters use it) and `generator.judge` (which drives the
adapters), so that neither imports the other's internals: judge -> languages -> toolchain.
"""
