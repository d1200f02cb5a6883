//! Which layout is cheapest: every assignment of the free components when there are few
//! enough ([`EXHAUSTIVE_UP_TO`]), otherwise a greedy descent from three starts (the
//! declared layout, every free component in tables, every one sparse), each step flipping
//! the one component that saves most, until no flip saves anything.

use hashbrown::HashMap;

/// The most free components searched exhaustively (2^12 = 4,096 layouts).
pub const EXHAUSTIVE_UP_TO: usize = 12;

/// A layout and its cost: `sparse[c]` says whether component `c` is sparse.
#[derive(Clone, Debug, PartialEq)]
pub struct Scored {
    /// Each component's kind: sparse (`true`) or table.
    pub sparse: Vec<bool>,
    /// The cost the search minimised.
    pub cost: f64,
}

/// Scores layouts that differ from `start` only in the `free` components, and answers
/// every layout scored, cheapest first (ties: nearest to `start` first, so an equal
/// prediction never advises a change; then fewer sparse components, then the layout's
/// order, so the answer does not depend on the order of evaluation).
pub fn search(free: &[u32], start: &[bool], cost: &dyn Fn(&[bool]) -> f64) -> Vec<Scored> {
    let mut seen: HashMap<Vec<bool>, f64> = HashMap::new();
    let mut score = |layout: &[bool]| -> f64 {
        if let Some(&c) = seen.get(layout) {
            return c;
        }
        let c = cost(layout);
        seen.insert(layout.to_vec(), c);
        c
    };
    if free.len() <= EXHAUSTIVE_UP_TO {
        let mut layout = start.to_vec();
        for mask in 0u32..1 << free.len() {
            for (bit, &c) in free.iter().enumerate() {
                layout[c as usize] = mask & (1 << bit) != 0;
            }
            score(&layout);
        }
    } else {
        let all = |sparse: bool| {
            let mut layout = start.to_vec();
            free.iter().for_each(|&c| layout[c as usize] = sparse);
            layout
        };
        for from in [start.to_vec(), all(false), all(true)] {
            descend(free, from, &mut score);
        }
    }
    let mut scored: Vec<Scored> = seen
        .into_iter()
        .map(|(sparse, cost)| Scored { sparse, cost })
        .collect();
    scored.sort_by(|a, b| {
        let count = |s: &Scored| s.sparse.iter().filter(|&&x| x).count();
        let moved = |s: &Scored| s.sparse.iter().zip(start).filter(|(x, y)| x != y).count();
        a.cost
            .total_cmp(&b.cost)
            .then(moved(a).cmp(&moved(b)))
            .then(count(a).cmp(&count(b)))
            .then(a.sparse.cmp(&b.sparse))
    });
    scored
}

/// Flips the component that saves most until none saves anything.
fn descend(free: &[u32], mut layout: Vec<bool>, score: &mut dyn FnMut(&[bool]) -> f64) {
    let mut best = score(&layout);
    loop {
        let mut step: Option<(u32, f64)> = None;
        for &c in free {
            layout[c as usize] ^= true;
            let cost = score(&layout);
            layout[c as usize] ^= true;
            if cost < best && step.is_none_or(|(_, s)| cost < s) {
                step = Some((c, cost));
            }
        }
        match step {
            Some((c, cost)) => {
                layout[c as usize] ^= true;
                best = cost;
            }
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cost with one planted optimum: each component pays when it differs from the plan.
    fn planted(plan: &[bool]) -> impl Fn(&[bool]) -> f64 + '_ {
        move |layout: &[bool]| {
            let misses = layout.iter().zip(plan).filter(|(a, b)| a != b).count();
            100.0 + 10.0 * misses as f64
        }
    }

    #[test]
    fn the_exhaustive_search_finds_a_planted_optimum() {
        let plan = vec![
            true, false, true, true, false, false, true, false, false, true,
        ];
        let free: Vec<u32> = (0..plan.len() as u32).collect();
        let found = search(&free, &vec![false; plan.len()], &planted(&plan));
        assert_eq!(found.len(), 1 << plan.len(), "every layout scored");
        assert_eq!(found[0].sparse, plan);
        assert_eq!(found[0].cost, 100.0);
    }

    #[test]
    fn the_descent_finds_a_planted_optimum_beyond_the_exhaustive_limit() {
        let plan: Vec<bool> = (0..20).map(|i| i % 3 == 0).collect();
        let free: Vec<u32> = (0..20).collect();
        let found = search(&free, &[false; 20], &planted(&plan));
        // Three descents of at most 20 steps, each scoring 20 flips.
        assert!(found.len() <= 3 * 21 * 20, "{} layouts scored", found.len());
        assert_eq!(found[0].sparse, plan);
    }

    /// Layouts predicted alike: the one nearest the start comes first.
    #[test]
    fn ties_keep_the_start() {
        let start = vec![true, false];
        let found = search(&[0, 1], &start, &|_: &[bool]| 1.0);
        assert_eq!(found[0].sparse, start);
    }

    /// Components that are not free keep the start's kind in every layout.
    #[test]
    fn fixed_components_keep_their_kind() {
        let start = vec![true, false, false];
        let found = search(&[1, 2], &start, &|l: &[bool]| {
            l.iter().filter(|&&x| x).count() as f64
        });
        assert_eq!(found.len(), 4);
        assert!(found.iter().all(|s| s.sparse[0]));
        assert_eq!(found[0].sparse, vec![true, false, false]);
    }
}
