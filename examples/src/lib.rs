//! Runnable examples live in `examples/`; run one with `cargo run -p examples --example quickstart`.
//!
//! The story examples (`bullets`, `crates`, `abc_problem`, `component_storage`: one per seed
//! story, see docs/guide.md) print what they measure on the backend they are built with.
//! Their output follows one rule, so the same program can be compared across backends:
//!
//! * a line starting with `[measured]` is a time or a byte count of this run on this machine;
//! * a line starting with `[archetype]`, `[sparse]` or `[hybrid]` describes what this
//!   backend did (its tables and sets, the chunks a query walked);
//! * every other line is the same on every backend (CI compares them, with the bracketed
//!   lines filtered out: `grep -v '^\['`).
//!
//! Each runs at full size by default and at a reduced size with `--small` or
//! `ECS_EXAMPLE_SIZE=small` (what CI and the tests use).

pub mod story {
    //! The output and size conventions of the story examples (see the crate docs).

    use std::fmt::Display;
    use std::time::{Duration, Instant};

    /// The prefix of a line holding a time or byte count of this run.
    pub const MEASURED: &str = "[measured] ";

    /// How large a story runs.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Size {
        /// The story's own numbers (the seed's sizes).
        Full,
        /// Reduced, for CI and tests (debug builds).
        Small,
    }

    impl Size {
        /// `Small` when the program got `--small` or `ECS_EXAMPLE_SIZE=small`, else `Full`.
        pub fn from_env_and_args() -> Size {
            let small_arg = std::env::args().skip(1).any(|a| a == "--small");
            let small_env = std::env::var("ECS_EXAMPLE_SIZE").is_ok_and(|v| v == "small");
            if small_arg || small_env {
                Size::Small
            } else {
                Size::Full
            }
        }

        /// `full` or `small`, by size.
        pub fn pick<T>(self, full: T, small: T) -> T {
            match self {
                Size::Full => full,
                Size::Small => small,
            }
        }
    }

    /// The output of a story: collected (for the tests) and, when `echo` is on, printed as
    /// it goes (for a person watching a long run).
    #[derive(Debug)]
    pub struct Out {
        text: String,
        echo: bool,
        backend: &'static str,
    }

    impl Out {
        /// An empty output for a story built on `backend`.
        pub fn new(backend: &'static str, echo: bool) -> Out {
            Out {
                text: String::new(),
                echo,
                backend,
            }
        }

        fn push(&mut self, line: &str) {
            if self.echo {
                println!("{line}");
            }
            self.text.push_str(line);
            self.text.push('\n');
        }

        /// A line that is the same on every backend.
        pub fn line(&mut self, text: impl Display) {
            let text = text.to_string();
            for line in text.lines() {
                self.push(line);
            }
        }

        /// Lines describing this backend, each prefixed with `[backend]`.
        pub fn backend(&mut self, text: impl Display) {
            let text = text.to_string();
            for line in text.lines() {
                let line = format!("[{}] {line}", self.backend);
                self.push(&line);
            }
        }

        /// Lines holding times or byte counts of this run, each prefixed with `[measured]`.
        pub fn measured(&mut self, text: impl Display) {
            let text = text.to_string();
            for line in text.lines() {
                let line = format!("{MEASURED}{line}");
                self.push(&line);
            }
        }

        /// Everything written so far.
        pub fn finish(self) -> String {
            self.text
        }
    }

    /// The lines of `text` every backend prints alike: those not starting with `[`.
    pub fn shared_lines(text: &str) -> Vec<&str> {
        text.lines().filter(|l| !l.starts_with('[')).collect()
    }

    /// The `[measured]` lines of `text`, prefix removed.
    pub fn measured_lines(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|l| l.strip_prefix(MEASURED))
            .collect()
    }

    /// The median time of `runs` calls of `f` (each timed on its own).
    pub fn median_time(runs: usize, mut f: impl FnMut()) -> Duration {
        let mut times: Vec<Duration> = (0..runs.max(1))
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect();
        times.sort();
        times[times.len() / 2]
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn lines_are_sorted_by_prefix() {
            let mut out = Out::new("sparse", false);
            out.line("same everywhere");
            out.backend("one set\ntwo sets");
            out.measured("1 ms");
            let text = out.finish();
            assert_eq!(
                text,
                "same everywhere\n[sparse] one set\n[sparse] two sets\n[measured] 1 ms\n"
            );
            assert_eq!(shared_lines(&text), ["same everywhere"]);
            assert_eq!(measured_lines(&text), ["1 ms"]);
        }
    }
}
