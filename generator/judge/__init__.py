"""The judge: build and run solutions in all six languages, isolated, with a timing harness.

`runner.judge(Job)` judges one file; `suite.run_plan` a plan of many; the worker process
(`python -m generator.judge.worker`) is where solutions run. See docs/judge.md.
"""
