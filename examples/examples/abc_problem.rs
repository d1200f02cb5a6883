//! The ABC problem (seed 003): the same entities, each with `A` and a different mix of `B`
//! to `H`, stored as archetype tables and as sparse sets. A table backend gives every mix its
//! own table, so a query over `A` walks 128 small tables; a sparse backend keeps one packed
//! array per letter whatever the mix, so the same query walks one array, but a join looks
//! the second letter up entity by entity unless the two arrays happen to hold the same
//! entities in the same order. The hybrid backend keeps the letters declared
//! `storage = "sparse"` (`F`, `G`, `H` here) out of its tables: fewer, larger tables, and a
//! look-up wherever a query joins a table letter with a sparse one.
//!
//! For each query the program prints what the backend hands it (chunks, rows, how each
//! letter is reached: `QueryState::walk`) and the time per pass.
//!
//! ```text
//! cargo run --release -p examples --example abc_problem                    # archetype
//! cargo run --release -p examples --example abc_problem --features sparse  # sparse sets
//! cargo run --release -p examples --example abc_problem --features hybrid  # both
//! cargo run -p examples --example abc_problem -- --small
//! ```

use ecs::ecs_core::layout::format_count;
use ecs::prelude::*;
use ecs_bench::report::markdown::format_time;
use examples::story::{median_time, Out, Size};

#[derive(Component)]
struct A(u32);
#[derive(Component)]
struct B(u32);
#[derive(Component)]
struct C(u32);
#[derive(Component)]
struct D(u32);
#[derive(Component)]
struct E(u32);
/// Tag-like letters, kept in sparse sets by the hybrid backend.
#[derive(Component)]
#[component(storage = "sparse")]
struct F(u32);
#[derive(Component)]
#[component(storage = "sparse")]
struct G(u32);
#[derive(Component)]
#[component(storage = "sparse")]
struct H(u32);

/// Entity `i` holds `A` and the letters `B..H` whose bit is set in `i % 128`: every one of
/// the 128 mixes, spread evenly.
fn spawn(world: &mut World, i: usize) {
    let mix = i % 128;
    let x = (i % 97) as u32;
    let e = world.spawn((A(x),));
    let has = |bit: usize| mix & (1 << bit) != 0;
    macro_rules! maybe {
        ($($bit:literal => $letter:ident),*) => {$(
            if has($bit) { world.insert(e, $letter(x)).expect("live entity"); }
        )*};
    }
    maybe!(0 => B, 1 => C, 2 => D, 3 => E, 4 => F, 5 => G, 6 => H);
}

/// Prints one query: its matches (the same everywhere), its walk on this backend, its time.
fn report<Q: ecs::ecs_core::query::QueryData + 'static>(
    out: &mut Out,
    world: &mut World,
    label: &str,
    runs: usize,
    mut pass: impl FnMut(&mut World),
) {
    let mut state = world.query_state::<Q, ()>().expect("no aliasing");
    let matches = state.iter_mut(world).count();
    out.line(format!(
        "query {label}: {} entities match",
        format_count(matches)
    ));
    out.backend(format!("  walks {}", state.walk(world)));
    let time = median_time(runs, || pass(world));
    out.measured(format!(
        "  {label}: {} per pass",
        format_time(time.as_nanos() as f64)
    ));
}

/// `A 123, B 456, ...`: each letter's values summed (wrapping), in any order.
fn letter_sums(world: &mut World) -> String {
    fn sum<'a>(values: impl Iterator<Item = &'a u32>) -> u32 {
        values.fold(0u32, |s, v| s.wrapping_add(*v))
    }
    let sums = [
        ("A", sum(world.query::<&A>().map(|l| &l.0))),
        ("B", sum(world.query::<&B>().map(|l| &l.0))),
        ("C", sum(world.query::<&C>().map(|l| &l.0))),
        ("D", sum(world.query::<&D>().map(|l| &l.0))),
        ("E", sum(world.query::<&E>().map(|l| &l.0))),
        ("F", sum(world.query::<&F>().map(|l| &l.0))),
        ("G", sum(world.query::<&G>().map(|l| &l.0))),
        ("H", sum(world.query::<&H>().map(|l| &l.0))),
    ];
    let parts: Vec<String> = sums.iter().map(|(l, s)| format!("{l} {s}")).collect();
    parts.join(", ")
}

/// Runs the story at `size` and returns its output (printed as it goes when `echo`).
pub fn run(size: Size, echo: bool) -> String {
    let n = size.pick(100_000, 4_096);
    let runs = size.pick(51, 5);
    let mut out = Out::new(BACKEND, echo);
    out.line(format!(
        "{} entities, each with A and a mix of B..H: 128 different component sets",
        format_count(n)
    ));
    out.line("F, G and H are declared storage = \"sparse\": only the hybrid backend reads that");
    let mut world = World::new();
    for i in 0..n {
        spawn(&mut world, i);
    }
    out.backend(world.layout().summary());
    report::<&A>(&mut out, &mut world, "&A", runs, |w| {
        w.query::<&mut A>().for_each(|a| a.0 = a.0.wrapping_add(1))
    });
    report::<(&A, &B)>(&mut out, &mut world, "(&A, &B)", runs, |w| {
        w.query::<(&mut A, &B)>()
            .for_each(|(a, b)| a.0 = a.0.wrapping_add(b.0))
    });
    report::<(&A, &B, &C)>(&mut out, &mut world, "(&A, &B, &C)", runs, |w| {
        w.query::<(&mut A, &B, &C)>()
            .for_each(|(a, b, c)| a.0 = a.0.wrapping_add(b.0 ^ c.0))
    });
    report::<(&A, &H)>(&mut out, &mut world, "(&A, &H)", runs, |w| {
        w.query::<(&mut A, &H)>()
            .for_each(|(a, h)| a.0 = a.0.wrapping_add(h.0))
    });
    out.line(format!(
        "sums after the passes (every backend computes the same): {}",
        letter_sums(&mut world)
    ));
    out.line("what each backend does with them:");
    out.line("  archetype: one table per mix, 128; every letter a dense column of each table");
    out.line("  sparse:    one set per letter; a query walks its smallest set, the others are");
    out.line("             dense where their entities line up with it, else looked up per row");
    out.line("  hybrid:    tables for the mixes of A..E (16), sets for F, G, H; joining a table");
    out.line("             letter with a sparse one looks the sparse one up per row");
    out.finish()
}

fn main() {
    run(Size::from_env_and_args(), true);
}
