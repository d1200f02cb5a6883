//! [`QueryIter`]: the items of one query run, from chunks (a scan) or from a change log's
//! entities (a driven run).

use super::{FetchContext, QueryData, QueryFilter};
use crate::entity::Entity;
use crate::storage::{ColumnAccess, FoldChunk, QueryChunk, SparseLookup, Storage};

/// Rows a short dense chunk's loop folds per step before its remainder.
///
/// Why: fragmentation makes many small tables, and a plain loop over a short chunk
/// vectorises badly: the compiler steps eight rows at a time (two 4-wide SSE operations)
/// and runs the rest one row at a time, so a 20-row chunk ran two steps and four scalar
/// rows. A fixed four-row step packs each step into one SIMD operation where the body
/// allows it (a 20-row chunk runs as five such steps, with no scalar remainder). Passes
/// over many small tables run markedly fewer instructions; joins over tiny tables whose
/// body does not vectorise pay a few more per table (ecs-bench/README.md, "Measured code
/// choices", has the counts).
const DENSE_GROUP: usize = 4;

/// Dense chunks with at least this many rows run one plain loop instead: over long
/// chunks the scalar remainder is negligible and the plain loop's wider steps win.
const SHORT_CHUNK: usize = 64;

/// Iterator over a query's items. `for_each`/`fold` run a tight loop per chunk.
///
/// Obtained from [`World::query`](crate::World::query),
/// [`QueryState::iter_mut`](crate::QueryState::iter_mut) and friends;
/// [`QueryIter::par_for_each`] runs the rest of the run on rayon.
pub struct QueryIter<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> {
    pub(super) inner: Inner<'w, Q, F, S>,
    /// The count of items taken, while a trace is recorded (always `None` for a storage
    /// that cannot record: see [`Storage::TRACED`]).
    pub(super) tally: Option<&'w crate::trace::world_tally::Tally>,
}

pub(super) enum Inner<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> {
    /// A scan over the storage's chunks.
    Chunks(ChunkIter<'w, Q, F, S>),
    /// A scan that leaves out the rows holding a component no part of the query checks
    /// (`Disabled`, see [`crate::disabled`]), by cutting chunks into runs.
    /// Boxed, so that the iterator of a query that hides nothing is no larger (it is
    /// moved by value when handed out).
    Hiding(Box<HidingIter<'w, Q, F, S>>),
    /// A driven run: the candidate entities, fetched by look-up.
    Entities(EntityIter<'w, Q, S>),
}

/// A scan: the remaining chunks and the chunk being walked.
pub(super) struct ChunkIter<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> {
    pub(super) data: &'w Q::State,
    pub(super) filter: &'w F::State,
    pub(super) chunks: S::Chunks<'w>,
    pub(super) current: Option<Current<'w, Q, F, S>>,
    pub(super) ctx: FetchContext<'w, S>,
}

/// A driven run: distinct live entities, each fetched once.
pub(super) struct EntityIter<'w, Q: QueryData, S: Storage + 'w> {
    pub(super) entities: std::slice::Iter<'w, Entity>,
    pub(super) data: &'w Q::State,
    pub(super) ctx: FetchContext<'w, S>,
}

/// A scan whose rows holding the component of the descriptor's slot `slot` are left out:
/// each chunk is asked once how it holds that component; a chunk that holds none is walked
/// whole, one whose every row holds it is skipped, and one that holds it in some rows is
/// walked in runs of rows without it (the runs are found by look-up between them, so the
/// query's own row loop is the plain one).
pub(super) struct HidingIter<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> {
    /// The scan; its `current` holds the run being walked.
    pub(super) scan: ChunkIter<'w, Q, F, S>,
    slot: usize,
    /// The open chunk's look-up of the hidden component and the chunk's row count, while
    /// rows after the current run are left to cut into runs.
    rest: Option<(&'w S::Lookup, usize)>,
}

/// Whether `lookup` holds `entity` (a hidden row), asked through a function pointer the
/// optimiser cannot see through. Every query type instantiates the hiding scan, which
/// worlds that never disable do not run; this way it adds no inlined copy of the backend's
/// look-up per query type beside the plain paths, whose inlining of the look-up depends on
/// how many callers it has (a precaution: the instruction counts did not move either way
/// when the cause of a 17-instruction `get` regression was looked for here).
pub(crate) fn holds_hidden<L: SparseLookup>(lookup: &L, entity: Entity) -> bool {
    let ask: fn(&L, Entity) -> bool = L::contains;
    std::hint::black_box(ask)(lookup, entity)
}

/// The rows `row..end` of one chunk, with its resolved fetches.
pub(super) struct Current<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> {
    pub(super) entities: &'w [Entity],
    pub(super) data: Q::Fetch<'w, S>,
    pub(super) filter: F::Fetch<'w, S>,
    pub(super) row: usize,
    pub(super) end: usize,
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> QueryIter<'w, Q, F, S> {
    /// A scan of `chunks`; `hidden`: the descriptor's slot whose holders are left out
    /// although no part of the query checks it (see [`HidingIter`]).
    pub(super) fn chunks(
        data: &'w Q::State,
        filter: &'w F::State,
        chunks: S::Chunks<'w>,
        ctx: FetchContext<'w, S>,
        hidden: Option<usize>,
    ) -> Self {
        let scan = ChunkIter {
            data,
            filter,
            chunks,
            current: None,
            ctx,
        };
        QueryIter {
            inner: match hidden {
                None => Inner::Chunks(scan),
                Some(slot) => Inner::Hiding(Box::new(HidingIter {
                    scan,
                    slot,
                    rest: None,
                })),
            },
            tally: None,
        }
    }

    pub(super) fn entities(
        entities: &'w [Entity],
        data: &'w Q::State,
        ctx: FetchContext<'w, S>,
    ) -> Self {
        QueryIter {
            inner: Inner::Entities(EntityIter {
                entities: entities.iter(),
                data,
                ctx,
            }),
            tally: None,
        }
    }
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> ChunkIter<'w, Q, F, S> {
    /// Resolves a chunk's fetches; all its rows are left to visit.
    pub(super) fn open(&self, chunk: S::Chunk<'w>) -> Current<'w, Q, F, S> {
        Self::open_with(self.data, self.filter, self.ctx, chunk)
    }

    /// [`ChunkIter::open`] from the scan's parts, for a caller holding `chunks` mutably.
    /// Always inlined, so a chunk built just before (a variant the backend's
    /// [`Storage::fold_chunks`] knows) is resolved with that variant known.
    #[inline(always)]
    fn open_with(
        data: &'w Q::State,
        filter: &'w F::State,
        ctx: FetchContext<'w, S>,
        chunk: S::Chunk<'w>,
    ) -> Current<'w, Q, F, S> {
        let entities = chunk.entities();
        Current {
            entities,
            // SAFETY: the chunk comes from the descriptor built with these states.
            data: unsafe { Q::fetch_chunk::<S>(data, &chunk, ctx) },
            // SAFETY: as above.
            filter: unsafe { F::fetch_chunk::<S>(filter, &chunk, ctx) },
            row: 0,
            end: entities.len(),
        }
    }

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        loop {
            if let Some(item) = self.current.as_mut().and_then(Current::next_item) {
                return Some(item);
            }
            let chunk = self.chunks.next()?;
            self.current = Some(self.open(chunk));
        }
    }

    /// Folds the rest of the scan. Out of line on purpose, and through `&mut self` so that
    /// nothing is copied: the scan then gets the registers to itself (inlined into a caller
    /// with more live state, the sparse backend's row loop spilled its entity pointer).
    #[inline(never)]
    fn fold_in_place<B>(&mut self, init: B, g: &mut impl FnMut(B, Q::Item<'w>) -> B) -> B {
        let mut acc = init;
        if let Some(current) = self.current.take() {
            acc = current.fold_rows(acc, g);
        }
        let mut step = ScanStep::<Q, F, S, _> {
            data: self.data,
            filter: self.filter,
            ctx: self.ctx,
            g,
        };
        S::fold_chunks(&mut self.chunks, acc, &mut step)
    }
}

/// A scan's step per chunk, for [`Storage::fold_chunks`]: open the chunk, fold its rows.
struct ScanStep<'w, 'g, Q: QueryData, F: QueryFilter, S: Storage + 'w, G> {
    data: &'w Q::State,
    filter: &'w F::State,
    ctx: FetchContext<'w, S>,
    g: &'g mut G,
}

impl<'w, Q, F, S, G, B> FoldChunk<S::Chunk<'w>, B> for ScanStep<'w, '_, Q, F, S, G>
where
    Q: QueryData,
    F: QueryFilter,
    S: Storage + 'w,
    G: FnMut(B, Q::Item<'w>) -> B,
{
    #[inline(always)]
    fn fold_chunk(&mut self, acc: B, chunk: S::Chunk<'w>) -> B {
        ChunkIter::<Q, F, S>::open_with(self.data, self.filter, self.ctx, chunk)
            .fold_rows(acc, self.g)
    }
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> Current<'w, Q, F, S> {
    /// The item of the next matching row, if any is left.
    #[inline(always)]
    fn next_item(&mut self) -> Option<Q::Item<'w>> {
        while self.row < self.end {
            let row = self.row;
            self.row += 1;
            // SAFETY: `row < end <= entities.len()`, and the cursor only moves forward, so
            // each row is fetched once.
            if let Some(item) = unsafe { self.fetch(row) } {
                return Some(item);
            }
        }
        None
    }

    /// Folds every remaining matching row: the tight loop `for_each` runs. A chunk whose
    /// slots are all dense runs a loop without per-row tests on the columns
    /// ([`QueryData::is_dense_chunk`]).
    #[inline(always)]
    pub(super) fn fold_rows<B>(mut self, mut acc: B, g: &mut impl FnMut(B, Q::Item<'w>) -> B) -> B {
        debug_assert!(self.end <= self.entities.len());
        if Q::is_dense_chunk::<S>(&self.data) {
            let mut row = self.row;
            if self.end - row >= SHORT_CHUNK {
                for row in row..self.end {
                    // SAFETY: `row < end`, each row once; the chunk is dense.
                    acc = unsafe { self.fold_dense_row(acc, row, g) };
                }
                return acc;
            }
            for _ in 0..(self.end - row) / DENSE_GROUP {
                for k in 0..DENSE_GROUP {
                    // SAFETY: `row + k < end`, each row once; the chunk is dense.
                    acc = unsafe { self.fold_dense_row(acc, row + k, g) };
                }
                row += DENSE_GROUP;
            }
            for row in row..self.end {
                // SAFETY: as above.
                acc = unsafe { self.fold_dense_row(acc, row, g) };
            }
            return acc;
        }
        for row in self.row..self.end {
            // SAFETY: `row` is in the chunk and visited once.
            if let Some(item) = unsafe { self.fetch(row) } {
                acc = g(acc, item);
            }
        }
        acc
    }

    /// Folds `row` of a dense chunk into `acc` (if it passes the filter).
    ///
    /// # Safety
    /// `row < entities.len()`, fetched at most once, and the chunk is dense
    /// ([`QueryData::is_dense_chunk`] answered true).
    #[inline(always)]
    unsafe fn fold_dense_row<B>(
        &mut self,
        acc: B,
        row: usize,
        g: &mut impl FnMut(B, Q::Item<'w>) -> B,
    ) -> B {
        // SAFETY: `row < end <= entities.len()` (caller).
        let entity = unsafe { *self.entities.get_unchecked(row) };
        if !F::filter_row::<S>(&self.filter, entity) {
            return acc;
        }
        // SAFETY: `row` is in the chunk and visited once; the chunk is dense (caller).
        g(acc, unsafe {
            Q::fetch_dense_row::<S>(&mut self.data, row, entity)
        })
    }

    /// # Safety
    /// `row < entities.len()`, fetched at most once.
    #[inline(always)]
    unsafe fn fetch(&mut self, row: usize) -> Option<Q::Item<'w>> {
        // SAFETY: `row` is in bounds (caller).
        let entity = unsafe { *self.entities.get_unchecked(row) };
        if !F::filter_row::<S>(&self.filter, entity) {
            return None;
        }
        // SAFETY: `row` is in the chunk and fetched once (caller).
        unsafe { Q::fetch_row::<S>(&mut self.data, row, entity) }
    }
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> HidingIter<'w, Q, F, S> {
    /// Opens `chunk`: all its rows when it holds no hidden row, none when every row is
    /// hidden, else the first run of visible rows (and the rest for later runs).
    fn open(&mut self, chunk: S::Chunk<'w>) {
        // SAFETY: the slot is one of the descriptor's (the state added it).
        let access = unsafe { chunk.column_unchecked(self.slot) };
        let mut current = self.scan.open(chunk);
        self.rest = None;
        match access {
            ColumnAccess::Absent => {}
            ColumnAccess::Sparse(lookup) if lookup.holds_none() => {}
            ColumnAccess::Dense(_) => current.end = current.row,
            ColumnAccess::Sparse(lookup) => {
                self.rest = Some((lookup, current.end));
                current.end = current.row;
            }
        }
        self.scan.current = Some(current);
        self.next_run();
    }

    /// Moves the current chunk's window to its next run of visible rows; false when none
    /// is left (the window is then empty).
    fn next_run(&mut self) -> bool {
        let (Some((lookup, len)), Some(current)) = (self.rest, self.scan.current.as_mut()) else {
            return false;
        };
        let entities = current.entities;
        let hidden = |row: usize| holds_hidden(lookup, entities[row]);
        let mut start = current.end;
        while start < len && hidden(start) {
            start += 1;
        }
        let mut end = start;
        while end < len && !hidden(end) {
            end += 1;
        }
        current.row = start;
        current.end = end;
        if end == len {
            self.rest = None;
        }
        start < end
    }

    #[inline(never)]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        loop {
            if let Some(item) = self.scan.current.as_mut().and_then(Current::next_item) {
                return Some(item);
            }
            if !self.next_run() {
                let chunk = self.scan.chunks.next()?;
                self.open(chunk);
            }
        }
    }

    #[inline(never)]
    fn fold<B>(&mut self, init: B, g: &mut impl FnMut(B, Q::Item<'w>) -> B) -> B {
        let mut acc = init;
        loop {
            if let Some(current) = self.scan.current.take() {
                let (entities, row, end) = (current.entities, current.row, current.end);
                let (data, filter) = (current.data.clone(), current.filter.clone());
                acc = current.fold_rows(acc, g);
                // Keep the chunk open (with its run walked) for its later runs.
                self.scan.current = Some(Current {
                    entities,
                    data,
                    filter,
                    row: end.max(row),
                    end,
                });
            }
            if !self.next_run() {
                let Some(chunk) = self.scan.chunks.next() else {
                    return acc;
                };
                self.open(chunk);
            }
        }
    }

    /// The runs left in this scan, each as a chunk window of its own (for a parallel run).
    pub(super) fn into_runs(mut self) -> Vec<Current<'w, Q, F, S>> {
        let mut runs = Vec::new();
        loop {
            if let Some(current) = &self.scan.current {
                if current.row < current.end {
                    runs.push(Current {
                        entities: current.entities,
                        data: current.data.clone(),
                        filter: current.filter.clone(),
                        row: current.row,
                        end: current.end,
                    });
                }
            }
            if !self.next_run() {
                let Some(chunk) = self.scan.chunks.next() else {
                    return runs;
                };
                self.open(chunk);
            }
        }
    }
}

impl<'w, Q: QueryData, S: Storage + 'w> EntityIter<'w, Q, S> {
    /// The item of one candidate (`None` when it lacks a fetched component).
    #[inline]
    pub(super) fn fetch(
        data: &'w Q::State,
        ctx: FetchContext<'w, S>,
        entity: Entity,
    ) -> Option<Q::Item<'w>> {
        let place = ctx.storage().place(entity)?;
        // SAFETY: candidates are distinct entities that were live when the run began, and the
        // world cannot be structurally changed while the run's borrow lasts; each is fetched
        // once (the slice iterator only moves forward); `place` is the entity's.
        unsafe { Q::fetch_entity(data, ctx, &place, entity) }
    }
}

impl<'w, Q: QueryData, S: Storage + 'w> Iterator for EntityIter<'w, Q, S> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        let (data, ctx) = (self.data, self.ctx);
        self.entities.find_map(|&e| Self::fetch(data, ctx, e))
    }
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> QueryIter<'w, Q, F, S> {
    /// `fold`, counting the items into a trace's tally. Out of line, so the plain `fold`
    /// keeps its size for the inliner.
    #[inline(never)]
    fn fold_counted<B, G: FnMut(B, Q::Item<'w>) -> B>(
        mut self,
        tally: &crate::trace::world_tally::Tally,
        init: B,
        mut g: G,
    ) -> B {
        let mut rows = 0u64;
        let mut counted = |acc, item| {
            rows += 1;
            g(acc, item)
        };
        let acc = match &mut self.inner {
            Inner::Chunks(chunks) => chunks.fold_in_place(init, &mut counted),
            Inner::Hiding(hiding) => hiding.fold(init, &mut counted),
            Inner::Entities(entities) => entities.fold(init, counted),
        };
        tally.took_all(rows);
        acc
    }
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> QueryIter<'w, Q, F, S> {
    /// `next` of a driven run or a hiding scan.
    #[inline]
    fn next_other(&mut self) -> Option<Q::Item<'w>> {
        match &mut self.inner {
            Inner::Chunks(chunks) => chunks.next(),
            Inner::Hiding(hiding) => hiding.next(),
            Inner::Entities(entities) => entities.next(),
        }
    }
}

impl<'w, Q: QueryData, F: QueryFilter, S: Storage + 'w> Iterator for QueryIter<'w, Q, F, S> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        // The plain scan first, with one test, as before the hiding scan existed: `next`
        // runs once per row of a `for` loop.
        let item = match &mut self.inner {
            Inner::Chunks(chunks) => chunks.next(),
            _ => self.next_other(),
        };
        // Counted in line (a recording storage only): out of line, the item came back
        // through memory in pieces and was read whole, a store-forwarding stall per row.
        if S::TRACED {
            if let Some(tally) = self.tally {
                tally.took(item.is_some());
            }
        }
        item
    }

    #[inline]
    fn fold<B, G: FnMut(B, Self::Item) -> B>(mut self, init: B, mut g: G) -> B {
        if S::TRACED {
            if let Some(tally) = self.tally {
                return self.fold_counted(tally, init, g);
            }
        }
        match &mut self.inner {
            Inner::Chunks(chunks) => chunks.fold_in_place(init, &mut g),
            Inner::Hiding(hiding) => hiding.fold(init, &mut g),
            Inner::Entities(entities) => entities.fold(init, g),
        }
    }
}
