#!/usr/bin/env bash
# Runs the libFuzzer target `differential` for a bounded time.
#
#   fuzz/run.sh [SECONDS]        (default: $SECS, else 60)
#
# Needs the nightly toolchain (cargo-fuzz instruments with sanitizer flags) and installs
# cargo-fuzz from crates.io when it is missing. The build holds the shared cargo lock
# ($CARGO_LOCK, default /tmp/cargo.lock) when `flock` exists; fuzzing itself does not.
# New inputs go to fuzz/work/corpus (ignored by git); the committed seeds in
# fuzz/corpus/differential are read, never written. Crashes land in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")"

SECS="${1:-${SECS:-60}}"
LOCK="${CARGO_LOCK:-/tmp/cargo.lock}"
locked() {
  if command -v flock >/dev/null 2>&1; then
    flock "$LOCK" "$@"
  else
    "$@"
  fi
}

if ! cargo fuzz --version >/dev/null 2>&1; then
  locked cargo install cargo-fuzz --locked
fi

mkdir -p work/corpus
locked cargo +nightly fuzz build differential
# The build above is up to date, so `run` only starts the fuzzer.
cargo +nightly fuzz run differential work/corpus corpus/differential -- \
  -max_total_time="$SECS" -print_final_stats=1
