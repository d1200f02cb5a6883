//! Driving valgrind's callgrind and reading its totals.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The valgrind version line (`valgrind-3.19.0`).
///
/// # Errors
/// When valgrind cannot be run: the message says how to install it.
pub fn version() -> Result<String, String> {
    let output = Command::new("valgrind")
        .arg("--version")
        .output()
        .map_err(|e| {
            format!(
                "valgrind is needed to count instructions and could not be run ({e}); install it \
             with your system's package manager (Debian/Ubuntu: `apt-get install valgrind`)"
            )
        })?;
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The full path of the `valgrind` program on the `PATH` (children run with an empty
/// environment, so they cannot search it themselves).
///
/// # Errors
/// When no `valgrind` is on the `PATH`.
pub fn program() -> Result<PathBuf, String> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("valgrind"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| "valgrind is not on the PATH".to_owned())
}

/// Callgrind's arguments: collection only inside
/// [`counted_run`](super::counted_run), the cache simulator on, totals to `out_file`.
pub fn arguments(out_file: &Path) -> Vec<String> {
    vec![
        "--tool=callgrind".to_owned(),
        "--quiet".to_owned(),
        "--cache-sim=yes".to_owned(),
        "--collect-atstart=no".to_owned(),
        format!("--toggle-collect={}", super::COUNTED_SYMBOL),
        format!("--callgrind-out-file={}", out_file.display()),
    ]
}

/// The event totals of one callgrind run (instruction fetches, data reads and writes, and
/// their first- and last-level misses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Events {
    /// `Ir`: instructions executed.
    pub instructions: u64,
    /// `Dr`: data reads.
    pub data_reads: u64,
    /// `Dw`: data writes.
    pub data_writes: u64,
    /// `I1mr`: first-level instruction cache misses.
    pub i1_misses: u64,
    /// `D1mr + D1mw`: first-level data cache misses.
    pub d1_misses: u64,
    /// `ILmr + DLmr + DLmw`: last-level misses.
    pub last_level_misses: u64,
}

impl Events {
    /// First-level misses, instructions and data.
    pub fn l1_misses(&self) -> u64 {
        self.i1_misses + self.d1_misses
    }

    /// Last-level misses (accesses that went to memory).
    pub fn ll_misses(&self) -> u64 {
        self.last_level_misses
    }

    /// `L1 hits + 5 × LL hits + 35 × RAM accesses`.
    pub fn estimated_cycles(&self) -> u64 {
        let accesses = self.instructions + self.data_reads + self.data_writes;
        let l1_hits = accesses.saturating_sub(self.l1_misses());
        let ll_hits = self.l1_misses().saturating_sub(self.last_level_misses);
        l1_hits + 5 * ll_hits + 35 * self.last_level_misses
    }
}

/// Reads the `events:` header and the `totals:` (or `summary:`) line of a callgrind output
/// file. Events the run did not record (no cache simulation) count as zero.
///
/// # Errors
/// When either line is missing or a number does not parse.
pub fn parse_totals(text: &str) -> Result<Events, String> {
    let field = |prefix: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(prefix))
            .map(str::trim)
    };
    let names = field("events:").ok_or("no `events:` line")?;
    let values = field("totals:")
        .or_else(|| field("summary:"))
        .ok_or("no `totals:` or `summary:` line")?;
    let mut events = Events::default();
    let values: Vec<&str> = values.split_whitespace().collect();
    for (i, name) in names.split_whitespace().enumerate() {
        let value = match values.get(i) {
            Some(v) => v
                .parse::<u64>()
                .map_err(|e| format!("event `{name}`: `{v}`: {e}"))?,
            None => 0,
        };
        match name {
            "Ir" => events.instructions = value,
            "Dr" => events.data_reads = value,
            "Dw" => events.data_writes = value,
            "I1mr" => events.i1_misses = value,
            "D1mr" | "D1mw" => events.d1_misses += value,
            "ILmr" | "DLmr" | "DLmw" => events.last_level_misses += value,
            _ => {}
        }
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "version: 1\ncreator: callgrind-3.19.0\n\
        events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n\
        fn=(1) main\n1 5 0 0 1 0 0 1 0 0\n\
        totals: 1000 10 2 300 20 4 100 5 1\n";

    #[test]
    fn totals_and_estimate() {
        let events = parse_totals(SAMPLE).unwrap();
        assert_eq!(events.instructions, 1000);
        assert_eq!(events.l1_misses(), 35);
        assert_eq!(events.ll_misses(), 7);
        // accesses 1400; L1 hits 1365; LL hits 28; RAM 7.
        assert_eq!(events.estimated_cycles(), 1365 + 5 * 28 + 35 * 7);
    }

    #[test]
    fn summary_without_cache_simulation() {
        let text = "events: Ir\nsummary: 42\n";
        let events = parse_totals(text).unwrap();
        assert_eq!(events.instructions, 42);
        assert_eq!(events.estimated_cycles(), 42);
    }

    #[test]
    fn missing_lines_and_bad_numbers_are_errors() {
        assert!(parse_totals("totals: 1\n").unwrap_err().contains("events"));
        assert!(parse_totals("events: Ir\n").unwrap_err().contains("totals"));
        let err = parse_totals("events: Ir\ntotals: x1\n").unwrap_err();
        assert!(err.contains("Ir"), "{err}");
    }
}
