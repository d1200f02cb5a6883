#!/usr/bin/env bash
# Runs a libFuzzer target for a bounded time.
#
#   fuzz/run.sh [SECONDS] [TARGET]   (default: $SECS, else 60; target `differential`)
#
# Targets: `differential` (operation sequences on every backend against a model) and
# `snapshot_load` (world snapshots through both loaders, every failed load checked to leave
# its world unchanged).
#
# Needs the nightly toolchain (cargo-fuzz instruments with sanitizer flags) and installs
# cargo-fuzz from crates.io when it is missing. The build holds the shared cargo lock
# ($CARGO_LOCK, default /tmp/cargo.lock) when `flock` exists; fuzzing itself does not.
# New inputs go to fuzz/work/<TARGET> (ignored by git); the committed seeds in
# fuzz/corpus/<TARGET> are read, never written. Crashes land in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")"

SECS="${1:-${SECS:-60}}"
TARGET="${2:-differential}"
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

mkdir -p "work/$TARGET"
locked cargo +nightly fuzz build "$TARGET"
# The build above is up to date, so `run` only starts the fuzzer.
cargo +nightly fuzz run "$TARGET" "work/$TARGET" "corpus/$TARGET" -- \
  -max_total_time="$SECS" -print_final_stats=1
