//! The bullets example: the same bullets on every backend, and `memory_usage()` flat once
//! the first waves have passed (seed 000's "memory is always reused").

#[allow(dead_code)] // the example's `main` is not called here
#[path = "../examples/bullets.rs"]
mod bullets;

use examples::story::{measured_lines, shared_lines, Size};

#[test]
fn memory_stays_flat_while_bullets_come_and_go() {
    let text = bullets::run(Size::Small, false);
    assert_eq!(
        shared_lines(&text),
        [
            "1,000 frames of 150 to 500 bullets fired and 20 to 59 frames of flight; every 100 frames:",
            "frame    100: 12,724 bullets alive,    32,300 fired,    19,576 despawned",
            "frame    200: 12,926 bullets alive,    65,000 fired,    52,074 despawned",
            "frame    300: 12,724 bullets alive,    97,300 fired,    84,576 despawned",
            "frame    400: 12,926 bullets alive,   130,000 fired,   117,074 despawned",
            "frame    500: 12,724 bullets alive,   162,300 fired,   149,576 despawned",
            "frame    600: 12,926 bullets alive,   195,000 fired,   182,074 despawned",
            "frame    700: 12,724 bullets alive,   227,300 fired,   214,576 despawned",
            "frame    800: 12,926 bullets alive,   260,000 fired,   247,074 despawned",
            "frame    900: 12,724 bullets alive,   292,300 fired,   279,576 despawned",
            "frame  1,000: 12,926 bullets alive,   325,000 fired,   312,074 despawned",
            "an engine that never reused a removed slot would hold 325,000 slots of 28 bytes by now, for 12,926 live bullets",
            "where the memory went at the last frame:",
        ]
    );
    let memory: Vec<u64> = measured_lines(&text)
        .iter()
        .map(|line| {
            let bytes = line.split("memory_usage").nth(1).expect("a memory line");
            let bytes = bytes.trim_start().split(' ').next().expect("a number");
            bytes.replace(',', "").parse().expect("a byte count")
        })
        .collect();
    assert_eq!(memory.len(), 10, "{text}");
    let (min, max) = (memory.iter().min().unwrap(), memory.iter().max().unwrap());
    assert!(
        *max as f64 <= *min as f64 * 1.01,
        "memory_usage is not flat: {memory:?}"
    );
    let layout: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("[{}] ", ecs::BACKEND)))
        .collect();
    assert!(layout[0].starts_with(ecs::BACKEND), "{text}");
    assert!(layout[0].contains("12,926 entities"), "{text}");
    assert!(
        layout.last().unwrap().ends_with("(= memory_usage)"),
        "{text}"
    );
}
