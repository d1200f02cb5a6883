//! `ecs-bench`: runs every workload on every storage backend and writes the comparison.
//!
//! ```text
//! cargo run --release -p ecs-bench -- report            # full sizes, a few minutes
//! cargo run --release -p ecs-bench -- report --quick    # well under a minute (CI)
//! cargo run --release -p ecs-bench -- report --filter seed000 --backend sparse
//! cargo run --release -p ecs-bench -- compare --baseline ecs-bench/baseline.json DIR/report.json
//! cargo run --profile counts -p ecs-bench -- counts --check ecs-bench/counts-baseline.json
//! cargo run --release -p ecs-bench -- list
//! ```
//!
//! The command line itself is [`ecs_bench::cli`], which programs with their own workloads
//! reuse.

use std::process::ExitCode;

use ecs_bench::alloc_counter::CountingAllocator;
use ecs_bench::report::Suite;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn main() -> ExitCode {
    ecs_bench::cli::main(Suite::builtin())
}
