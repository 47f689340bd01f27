"""Step 6 of the pipeline: write and record (docs/architecture.md). `apply` and `revert` call the
steps before in order - what is installed (install.targets), each patch's state (state.decide,
hashes first), every change planned and proven in memory (prove/) - then `commit` writes all or
nothing under the lock `exclusive` holds, and records it."""
