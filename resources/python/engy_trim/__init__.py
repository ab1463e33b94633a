"""engy hidden-states trim for a MINING sglang serve (never a validator's: the validator
recomputes from the full prefill block).

Put the folder holding this package and sitecustomize.py on the serve's PYTHONPATH. At serve
start one line on stderr says whether the trim armed and on which sglang version:
  [engy] hidden-states trim armed on sglang 0.5.12.post1 (...)
  [engy] hidden-states trim not armed: inert on sglang X (reason: ...)
See docs/trim-hidden-states.md for what it wraps and how to re-verify a new release.
"""
from .hook import install
from .versions import SUPPORTED_SGLANG_VERSIONS

__all__ = ["install", "SUPPORTED_SGLANG_VERSIONS"]
