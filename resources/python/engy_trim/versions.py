"""sglang releases whose two wrapped internals were read and checked by hand.

Add a version here only after walking docs/trim-hidden-states.md on a GPU box with that
release installed. Keep in step with SUPPORTED_SGLANG_VERSIONS in
electron/engine/serve/trim-module.ts (a unit test compares the two).
"""

SUPPORTED_SGLANG_VERSIONS = ("0.5.12.post1",)
