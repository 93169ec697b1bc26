"""How large a spec and its performance case may be (no imports: the judge's runner reads these
without the spec model)."""

#: the largest spec file read (data is literal only in the examples; cases draw theirs)
MAX_SPEC_BYTES = 2_000_000
#: the performance case must fit five times in a 16 GB card
PERF_BYTES_LIMIT = 3_200_000_000
