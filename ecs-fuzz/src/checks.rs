//! The runner's query-level operations: query shapes through the world's cached states and
//! through fresh `QueryState`s, the persistent change readers, the schedule, and the
//! whole-world comparison.

use hashbrown::HashMap;
use std::sync::Mutex;

use ecs_core::{BatchSize, ComponentId, Entity, QueryState, Storage, World};

use crate::components::{
    dynamic_value, PoolComponent, Row, A0, A1, B0, B1, D0, D1, DYNAMIC, G0, G1, H0, H1, POOL,
    ROW_LEN, T0, T1,
};
use crate::model::Kind;
use crate::on_lanes;
use crate::query::{aliases, FuzzData, FuzzFilter, ModelEntity, Probe, Record};
use crate::readers::{visit_reader_types, ReaderVisitor, READERS};
use crate::runner::{Failure, Runner};
use crate::shapes::{shape_name, visit_shape, ShapeVisitor, SHAPES};
use crate::systems::{RunReport, SYSTEMS};

/// The change logs a filter watches (a [`ShapeVisitor`]).
pub(crate) struct Watches;

impl ShapeVisitor for Watches {
    type Output = Vec<(usize, Kind)>;
    fn visit<Q: FuzzData, F: FuzzFilter>(self) -> Self::Output {
        let mut out = Vec::new();
        F::watches(&mut out);
        out
    }
}

/// The record of one backend item.
fn record<Q: FuzzData>(item: Q::Item<'_>) -> Record {
    let mut out = Record::default();
    Q::record(item, &mut out);
    out
}

/// Iterates `Q` filtered by `F` through the world's cached state, in iteration style
/// `style`: `None` when the world refuses the query (aliasing).
fn iterate<Q: FuzzData, F: FuzzFilter, S: Storage>(
    world: &mut World<S>,
    style: Style,
) -> Option<Vec<Record>> {
    let mut iter = world.try_query_filtered::<Q, F>().ok()?;
    let mut out = Vec::new();
    match style {
        Style::Next => {
            for item in iter {
                out.push(record::<Q>(item));
            }
        }
        Style::ForEach => iter.for_each(|item| out.push(record::<Q>(item))),
        Style::NextThenForEach => {
            // A partly consumed iterator: `for_each` must resume mid-chunk.
            out.extend(iter.by_ref().take(3).map(record::<Q>));
            iter.for_each(|item| out.push(record::<Q>(item)));
        }
        Style::Count => out.resize(iter.count(), Record::default()),
        Style::Parallel => {
            // After one item by `next`, so the parallel split starts mid-chunk.
            out.extend(iter.next().map(record::<Q>));
            let shared = Mutex::new(Vec::new());
            iter.par_for_each_batched(BatchSize::Rows(3), |item| {
                let r = record::<Q>(item);
                shared.lock().expect("no panic while held").push(r);
            });
            out.extend(shared.into_inner().expect("no panic while held"));
        }
    }
    out.sort_unstable();
    Some(out)
}

/// How a query op iterates.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    /// `Iterator::next`, one item at a time.
    Next,
    /// `for_each` (the fold fast path).
    ForEach,
    /// Three items by `next`, then `for_each` over the rest.
    NextThenForEach,
    /// `count`: items are not fetched, so nothing is written.
    Count,
    /// One item by `next`, then `par_for_each_batched` in batches of 3 rows, on rayon.
    Parallel,
}

impl Style {
    fn of(style: u8) -> Style {
        match style % 16 {
            0..=5 => Style::Next,
            6..=10 => Style::ForEach,
            11 | 12 => Style::NextThenForEach,
            13 | 14 => Style::Count,
            _ => Style::Parallel,
        }
    }
}

struct QueryOp<'a> {
    runner: &'a mut Runner,
    shape: usize,
    style: Style,
}

impl ShapeVisitor for QueryOp<'_> {
    type Output = Result<(), Failure>;
    fn visit<Q: FuzzData, F: FuzzFilter>(self) -> Self::Output {
        self.runner.query_shape::<Q, F>(self.shape, self.style)
    }
}

struct QueryGetOp<'a> {
    runner: &'a mut Runner,
    shape: usize,
    entity: Entity,
    view: bool,
}

impl ShapeVisitor for QueryGetOp<'_> {
    type Output = Result<(), Failure>;
    fn visit<Q: FuzzData, F: FuzzFilter>(self) -> Self::Output {
        self.runner
            .query_get_shape::<Q, F>(self.shape, self.entity, self.view)
    }
}

/// The model's side of a persistent reader's run or `get`.
struct ModelReader<'a> {
    runner: &'a mut Runner,
    reader: usize,
    get: Option<Entity>,
}

impl ShapeVisitor for ModelReader<'_> {
    type Output = Vec<Record>;
    fn visit<Q: FuzzData, F: FuzzFilter>(self) -> Self::Output {
        match self.get {
            Some(entity) => self
                .runner
                .model_get::<Q, F>(entity, Some(self.reader))
                .into_iter()
                .collect(),
            None => {
                self.runner.model.readers[self.reader].begin_run();
                self.runner.model_query::<Q, F>(Some(self.reader), true)
            }
        }
    }
}

/// A backend's side of a persistent reader's run (`get: None`) or `get`.
struct BackendReader<'a, S: Storage> {
    world: &'a mut World<S>,
    get: Option<Entity>,
}

impl<S: Storage> ReaderVisitor<S> for BackendReader<'_, S> {
    type Output = Vec<Record>;
    fn visit<Q: FuzzData, F: FuzzFilter>(self, state: &mut QueryState<Q, F, S>) -> Vec<Record> {
        match self.get {
            Some(entity) => state
                .get_mut(self.world, entity)
                .map(record::<Q>)
                .into_iter()
                .collect(),
            None => {
                let mut out: Vec<Record> = state.iter_mut(self.world).map(record::<Q>).collect();
                out.sort_unstable();
                out
            }
        }
    }
}

impl Runner {
    pub(crate) fn query(&mut self, shape: u16, style: u8) -> Result<(), Failure> {
        let shape = usize::from(shape) % SHAPES;
        let op = QueryOp {
            runner: self,
            shape,
            style: Style::of(style),
        };
        visit_shape(shape, op)
    }

    pub(crate) fn query_get(&mut self, shape: u16, target: u16, style: u8) -> Result<(), Failure> {
        let shape = usize::from(shape) % SHAPES;
        let entity = self.target(target);
        let op = QueryGetOp {
            runner: self,
            shape,
            entity,
            view: style % 2 == 1,
        };
        visit_shape(shape, op)
    }

    /// The model reader of a shape's cached world state, if its filter watches changes.
    fn shape_reader<F: FuzzFilter>(&mut self, shape: usize) -> Option<usize> {
        let mut watches = Vec::new();
        F::watches(&mut watches);
        if watches.is_empty() {
            return None;
        }
        let model = &mut self.model;
        Some(
            *self
                .shape_readers
                .entry(shape)
                .or_insert_with(|| model.add_reader(&watches)),
        )
    }

    fn query_shape<Q: FuzzData, F: FuzzFilter>(
        &mut self,
        shape: usize,
        style: Style,
    ) -> Result<(), Failure> {
        let want = if aliases::<Q>() {
            None
        } else {
            let reader = self.shape_reader::<F>(shape);
            if let Some(r) = reader {
                self.model.readers[r].begin_run();
            }
            Some(self.model_query::<Q, F>(reader, style != Style::Count))
        };
        let got = on_lanes!(self.lanes, self.current, lane => {
            iterate::<Q, F, _>(&mut lane.world, style)
        });
        self.agree(&format!("query {}", shape_name(shape)), &want, got)
    }

    fn query_get_shape<Q: FuzzData, F: FuzzFilter>(
        &mut self,
        shape: usize,
        entity: Entity,
        view: bool,
    ) -> Result<(), Failure> {
        let want = match aliases::<Q>() {
            true => None,
            false => Some(self.model_get::<Q, F>(entity, None)),
        };
        let got = on_lanes!(self.lanes, self.current, lane => {
            match lane.world.query_state::<Q, F>() {
                Err(_) => None,
                Ok(mut state) if view => {
                    Some(state.view_mut(&mut lane.world).with(entity, record::<Q>))
                }
                Ok(state) => Some(state.get_mut(&mut lane.world, entity).map(record::<Q>)),
            }
        });
        let what = if view {
            "QueryView::with"
        } else {
            "QueryState::get"
        };
        self.agree(&format!("{what} {}", shape_name(shape)), &want, got)
    }

    /// The model's answer to a run of `Q` filtered by `F` (the reader's run must have begun);
    /// with `write` false, only the number of matches (as empty records).
    pub(crate) fn model_query<Q: FuzzData, F: FuzzFilter>(
        &mut self,
        reader: Option<usize>,
        write: bool,
    ) -> Vec<Record> {
        let probe = match reader {
            Some(r) => Probe::Reader(&self.model.readers[r]),
            None => Probe::AllPass,
        };
        let hidden = &self.model.hidden;
        let matching: Vec<Entity> = self
            .model
            .rows
            .iter()
            .filter(|(e, row)| {
                Q::matches(row) && F::matches(row, **e, probe) && !hidden.contains(*e)
            })
            .map(|(e, _)| *e)
            .collect();
        if !write {
            return vec![Record::default(); matching.len()];
        }
        let mut out: Vec<Record> = matching
            .into_iter()
            .map(|e| self.model_record::<Q>(e))
            .collect();
        out.sort_unstable();
        out
    }

    /// The model's answer to `get(entity)` on a state of `Q` filtered by `F`.
    pub(crate) fn model_get<Q: FuzzData, F: FuzzFilter>(
        &mut self,
        entity: Entity,
        reader: Option<usize>,
    ) -> Option<Record> {
        let probe = match reader {
            Some(r) => Probe::Reader(&self.model.readers[r]),
            None => Probe::AllPass,
        };
        let row = self.model.rows.get(&entity)?;
        if !(Q::matches(row) && F::matches(row, entity, probe))
            || self.model.hidden.contains(&entity)
        {
            return None;
        }
        Some(self.model_record::<Q>(entity))
    }

    /// Records a matching entity's item in the model, writing and marking as the fetch does.
    pub(crate) fn model_record<Q: FuzzData>(&mut self, entity: Entity) -> Record {
        let mut marks = Vec::new();
        let mut out = Record::default();
        let row = self
            .model
            .rows
            .get_mut(&entity)
            .expect("matching entities are live");
        Q::model(
            &mut ModelEntity {
                entity,
                row,
                marks: &mut marks,
            },
            &mut out,
        );
        for slot in marks {
            self.model.changed(slot, entity);
        }
        out
    }

    pub(crate) fn run_reader(&mut self, reader: u8) -> Result<(), Failure> {
        self.reader_op(reader, None)
    }

    pub(crate) fn reader_get(&mut self, reader: u8, target: u16) -> Result<(), Failure> {
        let entity = self.target(target);
        self.reader_op(reader, Some(entity))
    }

    fn reader_op(&mut self, reader: u8, get: Option<Entity>) -> Result<(), Failure> {
        let index = usize::from(reader) % READERS;
        let model_reader = self.readers[index];
        let got = on_lanes!(self.lanes, self.current, lane => {
            let world = &mut lane.world;
            lane.readers.visit(index, BackendReader { world, get })
        });
        let want = visit_reader_types(
            index,
            ModelReader {
                runner: self,
                reader: model_reader,
                get,
            },
        );
        let what = match get {
            Some(_) => "reader get",
            None => "reader run",
        };
        self.agree(&format!("{what} #{index}"), &want, got)
    }

    pub(crate) fn run_schedule(&mut self, parallel: bool, toggle: u8) -> Result<(), Failure> {
        let toggle = usize::from(toggle) % 16;
        if toggle < SYSTEMS {
            self.schedule.enabled[toggle] ^= true;
            let enabled = self.schedule.enabled[toggle];
            on_lanes!(self.lanes, self.current, lane => {
                lane.schedule.set_enabled(lane.systems[toggle], enabled)
            });
        }
        let pending = self.schedule.run(&mut self.model);
        let got = on_lanes!(self.lanes, self.current, lane => {
            lane.schedule.set_parallel(parallel);
            lane.schedule.run(&mut lane.world);
            (RunReport::read(&lane.world), lane.schedule.error_count())
        });
        let skipped = got.each_ref().map(|(_, errors)| *errors);
        if let Some(k) = (1..skipped.len()).find(|&k| skipped[k] != skipped[0]) {
            return Err((
                crate::lanes::BACKENDS[k],
                format!("schedule: {skipped:?} commands skipped per backend"),
            ));
        }
        let got = got.map(|(report, _)| report);
        let reserved = match pending.spawns() {
            0 => Vec::new(),
            _ => got[0].spawned.clone(),
        };
        if reserved.len() != pending.spawns() {
            return Err((
                crate::lanes::BACKENDS[0],
                format!(
                    "schedule: expected {} reserved entities, got {reserved:?}",
                    pending.spawns()
                ),
            ));
        }
        let exclusive = got[0].exclusive_spawned;
        let want = self
            .schedule
            .finish(&mut self.model, pending, &reserved, exclusive)
            .map_err(|detail| (crate::lanes::BACKENDS[0], detail))?;
        let exclusive = want.exclusive_spawned.filter(|_| self.schedule.enabled[7]);
        for &entity in reserved.iter().chain(&exclusive) {
            self.remember_handle(entity);
        }
        self.agree("schedule resources", &want, got)
    }

    /// Every live entity with every component, the entity count, and liveness of every
    /// handle, against the model.
    pub(crate) fn compare_worlds(&mut self) -> Result<(), Failure> {
        let mut want: Vec<(Entity, Row)> = self.model.rows.iter().map(|(e, r)| (*e, *r)).collect();
        want.sort_unstable();
        let got = on_lanes!(self.lanes, self.current, lane => {
            snapshot(&mut lane.world, lane.dynamic)
        });
        self.agree("whole world", &Ok(want), got)?;
        let handles = self.handles.clone();
        let want: Vec<bool> = handles
            .iter()
            .map(|e| self.model.rows.contains_key(e))
            .collect();
        let got = on_lanes!(self.lanes, self.current, lane => {
            handles.iter().map(|&e| lane.world.contains(e)).collect::<Vec<bool>>()
        });
        self.agree("liveness of every handle", &want, got)?;
        if self.config.hooks {
            let got =
                on_lanes!(self.lanes, self.current, lane => crate::hooks::counts(&lane.world));
            crate::hooks::check_against_model(&got[0], &self.model)
                .map_err(|e| (crate::lanes::BACKENDS[0], format!("hook calls: {e}")))?;
            self.agree("hook calls", &got[0], got)?;
        }
        self.compare_links()
    }
}

fn value<T: PoolComponent>(c: Option<&T>) -> Option<u32> {
    c.map(T::value)
}

/// Every entity of `world` with its pool components (sorted), or a description of an entity
/// yielded twice or the count disagreeing with `len`.
fn snapshot<S: Storage>(
    world: &mut World<S>,
    dynamic: [ComponentId; DYNAMIC],
) -> Result<Vec<(Entity, Row)>, String> {
    let mut rows: HashMap<Entity, Row> = HashMap::new();
    for (e, a0, a1, b0, b1, t0, t1) in world.query::<(
        Entity,
        Option<&A0>,
        Option<&A1>,
        Option<&B0>,
        Option<&B1>,
        Option<&T0>,
        Option<&T1>,
    )>() {
        let mut row = [None; ROW_LEN];
        row[..6].copy_from_slice(&[
            value(a0),
            value(a1),
            value(b0),
            value(b1),
            value(t0),
            value(t1),
        ]);
        if rows.insert(e, row).is_some() {
            return Err(format!("{e:?} yielded twice"));
        }
    }
    let mut second = 0;
    for (e, d0, d1, h0, h1, g0, g1) in world.query::<(
        Entity,
        Option<&D0>,
        Option<&D1>,
        Option<&H0>,
        Option<&H1>,
        Option<&G0>,
        Option<&G1>,
    )>() {
        second += 1;
        let row = rows.entry(e).or_insert([None; ROW_LEN]);
        row[6..POOL].copy_from_slice(&[
            value(d0),
            value(d1),
            value(h0),
            value(h1),
            value(g0),
            value(g1),
        ]);
    }
    if rows.len() != world.len() || second != world.len() {
        return Err(format!(
            "queries yielded {} and {second} entities, len() is {}",
            rows.len(),
            world.len()
        ));
    }
    for (e, row) in &mut rows {
        for (which, &id) in dynamic.iter().enumerate() {
            row[POOL + which] =
                match world.get_bytes(*e, id) {
                    None => None,
                    Some(bytes) => Some(dynamic_value(which, bytes).ok_or_else(|| {
                        format!("{e:?}: dynamic component {which} holds {bytes:?}")
                    })?),
                };
        }
    }
    let mut rows: Vec<(Entity, Row)> = rows.into_iter().collect();
    rows.sort_unstable();
    Ok(rows)
}
