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

pub mod trace {
    //! `--trace FILE`, which every example that runs a simulation takes: it records what
    //! the program does to its world and writes the trace for `ecs-bench replay FILE`,
    //! which replays it on every backend and layout. Recording needs the facade's `trace`
    //! feature (this crate's default); the examples' output does not change.

    use std::path::PathBuf;

    use ecs::World;

    /// The file given with `--trace FILE` (or `--trace=FILE`), if any.
    pub fn requested() -> Option<PathBuf> {
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            if arg == "--trace" {
                return args.next().map(PathBuf::from);
            }
            if let Some(path) = arg.strip_prefix("--trace=") {
                return Some(path.into());
            }
        }
        None
    }

    /// Starts recording `world` when the program was given `--trace FILE`; exits with a
    /// message when the world cannot record (built without the `trace` feature).
    pub fn start(world: &mut World) {
        if requested().is_none() {
            return;
        }
        if let Err(err) = world.start_trace() {
            eprintln!("--trace: {err}");
            std::process::exit(2);
        }
    }

    /// Writes the trace to the file of `--trace FILE`, if the program was given one.
    pub fn finish(world: &mut World) {
        if requested().is_none() {
            return;
        }
        match world.finish_trace() {
            Ok(trace) => write(&trace),
            Err(err) => eprintln!("--trace: {err}"),
        }
    }

    /// Runs `f` and, when the program was given `--trace FILE`, records the worlds it
    /// builds (for an example whose world is built out of its reach) and writes the trace
    /// of the last one dropped. Frames are marked with `ecs::ecs_core::trace::frame()`.
    pub fn capture<R>(f: impl FnOnce() -> R) -> R {
        if requested().is_none() {
            return f();
        }
        let (out, traces) = ecs::ecs_core::trace::capture(f);
        match traces.last() {
            Some(trace) => write(trace),
            None => {
                eprintln!("--trace: no world was recorded (built without the `trace` feature?)")
            }
        }
        out
    }

    fn write(trace: &ecs::ecs_core::trace::Trace) {
        let Some(path) = requested() else { return };
        match std::fs::write(&path, trace.to_bytes()) {
            Ok(()) => eprintln!(
                "trace: {} ops ({} bytes), {} frames -> {}",
                trace.op_count(),
                trace.op_bytes(),
                trace.frames(),
                path.display()
            ),
            Err(err) => eprintln!("--trace: writing {}: {err}", path.display()),
        }
    }
}

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

    /// The number after `--frames`, if given (a simulation's length); exits with a message
    /// when what follows is not a number.
    pub fn frames_arg() -> Option<u32> {
        number_arg("--frames", "frames")
    }

    /// The number after `flag` (`--entities`), if given; exits with a message naming
    /// `what` when what follows is not a number.
    pub fn number_arg<T: std::str::FromStr>(flag: &str, what: &str) -> Option<T> {
        let args: Vec<String> = std::env::args().collect();
        let at = args.iter().position(|a| a == flag)?;
        match args.get(at + 1).map(|n| n.parse()) {
            Some(Ok(n)) => Some(n),
            _ => {
                eprintln!("{flag} takes a number of {what}");
                std::process::exit(2);
            }
        }
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
