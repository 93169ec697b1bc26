"""Every child that runs code chgen does not trust goes through this package.

Spec code (`chgen generate`'s example check, `chgen check --deep`), challenge.py being imported
(`chgen import`) and solutions (`chgen judge`, `chgen test`) run in children; chgen's own process
never runs them, and never unpickles or evaluates what such a child sends.

- limits.py: the limits a child gets (rlimits, wall time of spec code, the solution's own);
- bwrap.py: the one bubblewrap command line builder, the one probe, the view spec code gets;
- solution.py: the view and environment a solution's process gets; probe.py: whether it works
  here (gpu_probe.py on a GPU);
- process.py: process trees (subreaper, kill_tree, resident memory, output tail);
- watchdog.py: the one child-watching loop (time per phase, memory, exit);
- channel.py: what a child may send: JSON objects, one a line, each bounded in size;
- child.py: a spec-code child started, watched and read (`run_module`), and its side.
"""
