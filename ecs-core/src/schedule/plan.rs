//! The order a schedule runs its systems in: explicit ordering constraints, a stable
//! topological order, the conflict graph over it, and the segments between exclusive
//! systems.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::error::EcsError;
use crate::system::SystemAccess;

/// One system as the planner sees it.
pub(super) struct Node<'a> {
    /// `None`: disabled or not initialised (not planned, not run).
    pub access: Option<&'a SystemAccess>,
    /// The system's name, for cycle errors.
    pub name: &'a str,
}

/// The run order of a schedule's enabled systems.
///
/// # Invariants
/// * `order` lists every planned system once, after every system an explicit constraint
///   puts before it; among unconstrained systems, in insertion order.
/// * Each segment's `systems` are consecutive in `order` and hold no exclusive system; its
///   `exclusive` (if any) comes right after them in `order`, and the next segment after it.
/// * In a segment, local `j` is in `dependents[i]` exactly when `i < j` (order positions)
///   and system `i` must finish before `j` starts (they conflict, or a constraint says so);
///   `waits[j]` is the number of lists `j` is in. The roots (`waits` 0) start first.
#[derive(Debug, Default)]
pub(super) struct Plan {
    pub order: Vec<usize>,
    pub segments: Vec<Segment>,
    /// Planned systems by wave: 1 + the largest wave of a system it waits for.
    pub waves: Vec<Vec<usize>>,
}

/// Systems that may run in parallel, then (optionally) an exclusive system.
#[derive(Debug, Default)]
pub(super) struct Segment {
    /// Entry indices, in plan order.
    pub systems: Vec<usize>,
    /// Local indices of the systems that wait for each system.
    pub dependents: Vec<Vec<usize>>,
    /// How many systems each system waits for.
    pub waits: Vec<usize>,
    /// The exclusive system run alone after this segment's sync point.
    pub exclusive: Option<usize>,
}

impl Segment {
    /// The systems no other system of the segment waits for first.
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.systems.len()).filter(|&i| self.waits[i] == 0)
    }
}

impl Plan {
    /// Plans `nodes` under the explicit `edges` (`(a, b)`: `a` runs before `b`; edges to or
    /// from unplanned systems are ignored).
    ///
    /// # Errors
    /// [`EcsError::ScheduleCycle`] when the constraints contradict each other, naming the
    /// systems of one cycle.
    pub fn new(nodes: &[Node<'_>], edges: &[(usize, usize)]) -> Result<Plan, EcsError> {
        let planned = |i: usize| nodes[i].access.is_some();
        let mut after: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        let mut before_count = vec![0usize; nodes.len()];
        for &(a, b) in edges {
            if a != b && planned(a) && planned(b) && !after[a].contains(&b) {
                after[a].push(b);
                before_count[b] += 1;
            }
        }
        let order = stable_topological_order(nodes, &after, &mut before_count)?;
        let must_wait = |a: usize, b: usize| {
            after[a].contains(&b) || {
                let (x, y) = (nodes[a].access.unwrap(), nodes[b].access.unwrap());
                x.conflicts_with(y)
            }
        };
        let mut plan = Plan::default();
        let mut wave_of = vec![0usize; nodes.len()];
        for (p, &b) in order.iter().enumerate() {
            let wave = order[..p]
                .iter()
                .filter(|&&a| must_wait(a, b))
                .map(|&a| wave_of[a] + 1)
                .max()
                .unwrap_or(0);
            wave_of[b] = wave;
            if plan.waves.len() <= wave {
                plan.waves.resize_with(wave + 1, Vec::new);
            }
            plan.waves[wave].push(b);
        }
        let mut segment = Segment::default();
        for &i in &order {
            if nodes[i].access.is_some_and(SystemAccess::is_exclusive) {
                segment.exclusive = Some(i);
                plan.segments.push(std::mem::take(&mut segment));
            } else {
                segment.systems.push(i);
            }
        }
        plan.segments.push(segment);
        plan.order = order;
        for segment in &mut plan.segments {
            let n = segment.systems.len();
            segment.dependents = vec![Vec::new(); n];
            segment.waits = vec![0; n];
            for j in 0..n {
                for i in 0..j {
                    if must_wait(segment.systems[i], segment.systems[j]) {
                        segment.dependents[i].push(j);
                        segment.waits[j] += 1;
                    }
                }
            }
        }
        Ok(plan)
    }
}

/// Kahn's algorithm, taking the lowest insertion index among the ready systems each time,
/// so unconstrained systems keep their insertion order.
fn stable_topological_order(
    nodes: &[Node<'_>],
    after: &[Vec<usize>],
    before_count: &mut [usize],
) -> Result<Vec<usize>, EcsError> {
    let planned: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].access.is_some())
        .collect();
    let mut ready: BinaryHeap<Reverse<usize>> = planned
        .iter()
        .copied()
        .filter(|&i| before_count[i] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(planned.len());
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &j in &after[i] {
            before_count[j] -= 1;
            if before_count[j] == 0 {
                ready.push(Reverse(j));
            }
        }
    }
    if order.len() == planned.len() {
        return Ok(order);
    }
    Err(EcsError::ScheduleCycle {
        systems: find_cycle(after, before_count)
            .into_iter()
            .map(|i| nodes[i].name.to_owned())
            .collect(),
    })
}

/// One cycle among the systems Kahn's algorithm could not order (those still waiting): walk
/// back from one of them through systems that also still wait until a system repeats.
fn find_cycle(after: &[Vec<usize>], before_count: &[usize]) -> Vec<usize> {
    let stuck = |i: usize| before_count[i] > 0;
    let start = (0..after.len())
        .find(|&i| stuck(i))
        .expect("a stuck system");
    // Every stuck system has a stuck predecessor (its remaining count comes from them).
    let predecessor = |b: usize| (0..after.len()).find(|&a| stuck(a) && after[a].contains(&b));
    let mut path = vec![start];
    let mut current = start;
    loop {
        let previous = predecessor(current).expect("a stuck system waits for a stuck one");
        if let Some(at) = path.iter().position(|&x| x == previous) {
            // `path` walks backwards (each system's predecessor follows it): reverse it,
            // and start at the earliest-added system, so the message is stable.
            let mut cycle = path[at..].to_vec();
            cycle.reverse();
            let first = (0..cycle.len()).min_by_key(|&k| cycle[k]).unwrap_or(0);
            cycle.rotate_left(first);
            return cycle;
        }
        path.push(previous);
        current = previous;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes<'a>(access: &'a SystemAccess, names: &'a [&'a str]) -> Vec<Node<'a>> {
        names
            .iter()
            .map(|name| Node {
                access: Some(access),
                name,
            })
            .collect()
    }

    #[test]
    fn constraints_reorder_and_keep_insertion_order_otherwise() {
        let free = SystemAccess::default();
        let names = ["a", "b", "c", "d"];
        let plan = Plan::new(&nodes(&free, &names), &[(3, 0), (2, 1)]).unwrap();
        assert_eq!(plan.order, vec![2, 1, 3, 0]);
        assert_eq!(plan.waves, vec![vec![2, 3], vec![1, 0]]);
        assert_eq!(plan.segments.len(), 1);
    }

    #[test]
    fn a_cycle_names_its_systems() {
        let free = SystemAccess::default();
        let names = ["a", "b", "c", "d"];
        let err = Plan::new(&nodes(&free, &names), &[(0, 1), (1, 2), (2, 1), (3, 0)]).unwrap_err();
        assert_eq!(
            err,
            EcsError::ScheduleCycle {
                systems: vec!["b".into(), "c".into()]
            }
        );
    }

    #[test]
    fn exclusive_systems_split_segments() {
        let free = SystemAccess::default();
        let alone = SystemAccess::exclusive();
        let names = ["a", "x", "b"];
        let ns = vec![
            Node {
                access: Some(&free),
                name: names[0],
            },
            Node {
                access: Some(&alone),
                name: names[1],
            },
            Node {
                access: Some(&free),
                name: names[2],
            },
        ];
        let plan = Plan::new(&ns, &[]).unwrap();
        assert_eq!(plan.segments.len(), 2);
        assert_eq!(plan.segments[0].systems, vec![0]);
        assert_eq!(plan.segments[0].exclusive, Some(1));
        assert_eq!(plan.segments[1].systems, vec![2]);
        assert_eq!(plan.waves, vec![vec![0], vec![1], vec![2]]);
    }
}
