//! [`QueryIter::par_for_each`]: a query run split into row batches on rayon.
//!
//! The run's rows (chunk rows of a scan, or the candidates of a driven run) are numbered
//! `0..total` across chunks; a batch is a range of that numbering, so batches may span
//! small chunks and split big ones, and no batch allocates.
//!
//! Rayon costs a few microseconds to wake threads and split work: more than a loop over a
//! few hundred light rows takes. The batching policies ([`BatchSize`]):
//!
//! * [`BatchSize::Auto`] (default): chunks are walked sequentially, exactly like `for_each`
//!   (no clock, no allocation), until the rows seen reach [`PARALLEL_MIN_ROWS`]; the chunk
//!   that crosses it and the rest are split into batches of at least [`MIN_BATCH_ROWS`]
//!   rows (four per thread when there are more). A query over a few hundred entities is
//!   therefore the sequential loop.
//! * [`BatchSize::Measured`]: for rows whose cost is large or unknown (heavy_compute's 100
//!   matrix inversions per entity, where even 1,000 rows are worth splitting): the first
//!   rows run on the calling thread and are timed (1, 2, 4, ... until [`PROBE_TIME`] passed or
//!   [`PROBE_ROWS`] rows ran); if the estimated rest is below [`PARALLEL_ABOVE`] it runs
//!   there too, else it is cut into batches of about [`TARGET_BATCH`] of work (at least four
//!   per thread). A few clock reads per call.
//! * [`BatchSize::Rows`]: a fixed batch size.

use std::ops::Range;
use std::time::{Duration, Instant};

use super::iter::{ChunkIter, Current, EntityIter, Inner};
use super::{FetchContext, QueryData, QueryFilter, QueryIter};
use crate::entity::Entity;
use crate::storage::Storage;

/// [`BatchSize::Auto`] stays sequential until a run has shown this many rows.
pub const PARALLEL_MIN_ROWS: usize = 4096;
/// [`BatchSize::Auto`]'s smallest batch.
pub const MIN_BATCH_ROWS: usize = 1024;
/// Rows timed on the calling thread before choosing how to split ([`BatchSize::Measured`]).
pub const PROBE_ROWS: usize = 32;
/// Probing stops once the rows run so far took this long ([`BatchSize::Measured`]).
pub const PROBE_TIME: Duration = Duration::from_micros(2);
/// Estimated remaining work above which a run goes parallel ([`BatchSize::Measured`]).
pub const PARALLEL_ABOVE: Duration = Duration::from_micros(50);
/// Work aimed for per batch ([`BatchSize::Measured`]).
pub const TARGET_BATCH: Duration = Duration::from_micros(20);

/// How [`QueryIter::par_for_each_batched`] splits a run into parallel tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BatchSize {
    /// Sequential for small runs, batches of at least [`MIN_BATCH_ROWS`] rows for large ones
    /// (see the [module docs](self)). For light per-row work.
    #[default]
    Auto,
    /// Time the first rows, then choose (see the [module docs](self)). For heavy per-row work.
    Measured,
    /// A fixed number of rows per task (0 is taken as 1); sequential when the run has no
    /// more rows than that.
    Rows(usize),
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> QueryIter<'w, Q, F, S> {
    /// Calls `f` on every remaining item, in parallel when the run is large enough
    /// ([`BatchSize::Auto`]). Items are handed out in no particular order.
    ///
    /// ```
    /// # use ecs_core::{World, Component, BatchSize, testing::VecStorage};
    /// #[derive(Component)]
    /// struct Hp(u32);
    /// let mut world = World::<VecStorage>::new();
    /// world.spawn_batch((0..100).map(|i| (Hp(i),)));
    /// world.query::<&mut Hp>().par_for_each(|hp| hp.0 *= 2);
    /// assert_eq!(world.query::<&Hp>().map(|hp| hp.0).sum::<u32>(), 9900);
    /// // Heavy rows: let the first ones be timed.
    /// world.query::<&mut Hp>().par_for_each_batched(BatchSize::Measured, |hp| hp.0 /= 2);
    /// assert_eq!(world.query::<&Hp>().map(|hp| hp.0).sum::<u32>(), 4950);
    /// ```
    pub fn par_for_each(self, f: impl Fn(Q::Item<'w>) + Send + Sync) {
        self.par_for_each_batched(BatchSize::Auto, f);
    }

    /// Like [`QueryIter::par_for_each`] with an explicit batching policy.
    pub fn par_for_each_batched(self, batch: BatchSize, f: impl Fn(Q::Item<'w>) + Send + Sync) {
        if S::TRACED && self.tally.is_some() {
            // Recording: one thread, so the trace counts the items (see `crate::trace`).
            return self.for_each(f);
        }
        match self.inner {
            Inner::Chunks(chunks) => match batch {
                BatchSize::Auto => auto_chunks(chunks, &f),
                _ => run(&ChunkRows::new(chunks, None), batch, &f),
            },
            Inner::Hiding(hiding) => run(&ChunkRows::from_pieces((*hiding).into_runs()), batch, &f),
            Inner::Entities(entities) => {
                let rows = EntityRows::<Q, S> {
                    entities: entities.entities.as_slice(),
                    data: entities.data,
                    ctx: entities.ctx,
                };
                run(&rows, batch, &f);
            }
        }
    }
}

/// [`BatchSize::Auto`] over a scan: sequential chunk by chunk while the run stays small.
fn auto_chunks<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w>(
    mut chunks: ChunkIter<'w, Q, F, S>,
    f: &(impl Fn(Q::Item<'w>) + Send + Sync),
) {
    let mut seen = 0;
    let mut next = chunks.current.take();
    loop {
        let Some(current) = next.take().or_else(|| {
            let chunk = chunks.chunks.next()?;
            Some(chunks.open(chunk))
        }) else {
            return;
        };
        seen += current.end - current.row;
        if seen >= PARALLEL_MIN_ROWS && crate::parallel::threads() > 1 {
            // This chunk and the rest are worth splitting.
            return run(&ChunkRows::new(chunks, Some(current)), BatchSize::Auto, f);
        }
        current.fold_rows((), &mut |(), item| f(item));
    }
}

/// A run's rows, numbered `0..len()`, that can be visited by range from any thread.
trait Rows {
    type Item;
    fn len(&self) -> usize;
    fn visit(&self, range: Range<usize>, f: &impl Fn(Self::Item));
}

/// Shares a [`Rows`] with rayon's threads.
struct Shared<R>(R);

impl<R> Shared<R> {
    /// The rows (a method, so closures capture the whole `Shared`, not its field).
    fn rows(&self) -> &R {
        &self.0
    }
}

// SAFETY: tasks visit disjoint row ranges of one run, and a run's chunks hold live, pairwise
// distinct entities whose values do not overlap (the `Storage` contract's "chunks" and
// "values" promises), so no two threads fetch the same row, entity or value; what the rows
// hold besides is, by the `QueryData`/`QueryFilter` contracts, storage
// pointers (valid for the run's borrow) and shared references to `Sync` data, read
// concurrently only through `&` (cloning a fetch only copies them).
unsafe impl<R> Sync for Shared<R> {}

fn run<R: Rows>(rows: &R, batch: BatchSize, f: &(impl Fn(R::Item) + Send + Sync)) {
    let total = rows.len();
    let threads = crate::parallel::threads();
    let (start, size) = match batch {
        BatchSize::Rows(size) => (0, size.max(1)),
        BatchSize::Auto if total < PARALLEL_MIN_ROWS => (0, total),
        BatchSize::Auto => (0, MIN_BATCH_ROWS.max(total.div_ceil(threads * 4))),
        BatchSize::Measured => {
            let (probe, elapsed) = probe(rows, total, f);
            let per_row_ns = (elapsed.as_nanos() / probe.max(1) as u128).max(1);
            let rest = total - probe;
            if threads <= 1 || per_row_ns * rest as u128 <= PARALLEL_ABOVE.as_nanos() {
                rows.visit(probe..total, f);
                return;
            }
            let by_time = (TARGET_BATCH.as_nanos() / per_row_ns).max(1) as usize;
            (probe, by_time.min(rest.div_ceil(threads * 4)).max(1))
        }
    };
    if threads <= 1 || total - start <= size {
        rows.visit(start..total, f);
        return;
    }
    let shared = Shared(rows);
    let batches = (total - start).div_ceil(size);
    crate::parallel::for_each_index(batches, |b| {
        let from = start + b * size;
        shared.rows().visit(from..(from + size).min(total), f);
    });
}

/// Runs and times the first rows on the calling thread for [`BatchSize::Measured`]: 1, then
/// 2, 4, ... more until [`PROBE_TIME`] has passed or [`PROBE_ROWS`] rows ran. Returns the rows
/// run and the time they took.
///
/// The other threads idle meanwhile, so the probe stops as soon as the estimate is usable:
/// heavy rows (heavy_compute's take ~3 µs each) are judged after one or two, light ones
/// after up to [`PROBE_ROWS`].
fn probe<R: Rows>(rows: &R, total: usize, f: &impl Fn(R::Item)) -> (usize, Duration) {
    let limit = PROBE_ROWS.min(total);
    let started = Instant::now();
    let (mut done, mut step) = (0, 1);
    while done < limit {
        let end = (done + step).min(limit);
        rows.visit(done..end, f);
        done = end;
        if started.elapsed() >= PROBE_TIME {
            break;
        }
        step *= 2;
    }
    (done, started.elapsed())
}

/// A scan's chunks, each with its fetches resolved once on the calling thread.
struct ChunkRows<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> {
    pieces: Vec<Current<'w, Q, F, S>>,
    /// `offsets[i]`: the number of the first row of `pieces[i]`; one extra entry: the total.
    offsets: Vec<usize>,
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> ChunkRows<'w, Q, F, S> {
    /// The rows of `first` (if any), then of the iterator's current chunk and the rest.
    fn new(mut chunks: ChunkIter<'w, Q, F, S>, first: Option<Current<'w, Q, F, S>>) -> Self {
        let mut pieces = Vec::new();
        pieces.extend(first);
        pieces.extend(chunks.current.take());
        while let Some(chunk) = chunks.chunks.next() {
            pieces.push(chunks.open(chunk));
        }
        Self::from_pieces(pieces)
    }

    /// The rows of `pieces` (chunk windows), in order.
    fn from_pieces(mut pieces: Vec<Current<'w, Q, F, S>>) -> Self {
        pieces.retain(|p| p.row < p.end);
        let mut offsets = Vec::with_capacity(pieces.len() + 1);
        let mut total = 0;
        for piece in &pieces {
            offsets.push(total);
            total += piece.end - piece.row;
        }
        offsets.push(total);
        ChunkRows { pieces, offsets }
    }
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> Rows for ChunkRows<'w, Q, F, S> {
    type Item = Q::Item<'w>;

    fn len(&self) -> usize {
        *self.offsets.last().expect("offsets end with the total")
    }

    fn visit(&self, range: Range<usize>, f: &impl Fn(Q::Item<'w>)) {
        let mut at = range.start;
        let mut piece = self.offsets.partition_point(|&o| o <= at).saturating_sub(1);
        while at < range.end && piece < self.pieces.len() {
            let p = &self.pieces[piece];
            let first = p.row + (at - self.offsets[piece]);
            let last = p.row + (range.end.min(self.offsets[piece + 1]) - self.offsets[piece]);
            let rows = Current::<Q, F, S> {
                entities: p.entities,
                data: p.data.clone(),
                filter: p.filter.clone(),
                row: first,
                end: last,
            };
            rows.fold_rows((), &mut |(), item| f(item));
            at = self.offsets[piece + 1];
            piece += 1;
        }
    }
}

/// A driven run's candidates.
struct EntityRows<'w, Q: QueryData, S: Storage + 'w> {
    entities: &'w [Entity],
    data: &'w Q::State,
    ctx: FetchContext<'w, S>,
}

impl<'w, Q: QueryData, S: Storage + 'w> Rows for EntityRows<'w, Q, S> {
    type Item = Q::Item<'w>;

    fn len(&self) -> usize {
        self.entities.len()
    }

    fn visit(&self, range: Range<usize>, f: &impl Fn(Q::Item<'w>)) {
        for &entity in &self.entities[range] {
            if let Some(item) = EntityIter::<Q, S>::fetch(self.data, self.ctx, entity) {
                f(item);
            }
        }
    }
}
