"""Capture, on the GPU machine: the driver (what to run, scheduling, reporting), the runner (one
snippet file, cell by cell, in a child process), their result contract, the sandbox, text
normalisation, shards and merging, and the recapture report. Stdlib only; imports the core alone."""
