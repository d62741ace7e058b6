//! The search tree's nodes as a struct of arrays: one array per field, indexed by node id, a node's
//! children side by side. Selection reads five statistics of every child of every node on the path and
//! the AMAF update three; with one array per statistic each scan touches only what it reads, and
//! selection's arithmetic runs over whole vectors of children at once (the compiler vectorises it),
//! which an array of node structs prevents.

use super::tree::SearchParams;
use crate::go::coord::GRID;
use crate::go::{Move, Point};
use std::ops::Range;

/// The padded-grid index that stands for a pass in a node: index 0 is a corner of the border, where no
/// stone is ever played, so AMAF's "who played here first" table never matches it.
pub const PASS: u16 = 0;

/// Entries of the "who played here first" table: a power of two at least [`GRID`], so that masking a
/// point index keeps it in range and the AMAF scan needs no bounds check per child.
pub const OWNER_SLOTS: usize = GRID.next_power_of_two();

/// Who first played each point after the node being backed up: 0 nobody, else 1 + colour index.
pub type FirstOwner = [u8; OWNER_SLOTS];

/// A node's move and children.
#[derive(Debug, Default, Clone, Copy)]
struct Link {
    /// Index of the first child; 0 until the node is expanded (node 0, the root, is nobody's child, so
    /// 0 is free to mean "not expanded").
    first_child: u32,
    child_count: u16,
    /// The move's padded-grid index, or [`PASS`].
    point: u16,
}

#[derive(Debug, Default)]
pub struct Nodes {
    /// Sum of the selection value (wins plus a little score), mover's view.
    value_sum: Vec<f64>,
    rave_value_sum: Vec<f64>,
    visits: Vec<u32>,
    rave_visits: Vec<u32>,
    /// `1/sqrt(visits)`, or 1 before the first visit: kept by [`Nodes::record_visit`], which changes
    /// `visits` on the path only, so that selection over all the children needs no square root for it.
    explore: Vec<f32>,
    /// Where each node's move and children are: what the descent reads of the child it chose, in one
    /// place, so that a child far down the tree costs one cache miss instead of three.
    links: Vec<Link>,
    /// Each node's move again ([`Link::point`]), packed: the AMAF update reads the moves of all the
    /// children of every node on the path, 2 bytes each here instead of an 8-byte link each (a quarter
    /// of the cache lines, which far down the tree are misses).
    points: Vec<u16>,
    /// Selection's scratch: the value of each child of the node being selected from.
    values: Vec<f64>,
    /// `sqrt(ln(visits + 1))` for the small visit counts of most nodes below the top of the tree,
    /// computed once: selection's logarithm is then a lookup (the same value, computed the same way).
    sqrt_ln: Vec<f64>,
}

/// Visit counts below which [`Nodes::sqrt_ln`] keeps its values (8 KiB).
const SQRT_LN_TABLE: usize = 1024;

/// `sqrt(ln(visits + 1))`, selection's exploration factor before its constant.
fn sqrt_ln(visits: u32) -> f64 {
    (f64::from(visits) + 1.0).ln().sqrt()
}

impl Nodes {
    /// An arena holding only the root, with room for `max_nodes` nodes and one more expansion.
    ///
    /// The room is reserved up front (address space only: the kernel gives memory on first touch), so
    /// the arrays never move, and beyond the first [`SMALL_TREE`] nodes it is backed by huge pages: a
    /// long search fills tens of megabytes in random order, where 4 KiB pages cost a page fault each and
    /// a TLB miss on most of the descent's loads, while short searches never touch that part.
    pub fn with_root(max_nodes: usize) -> Nodes {
        let room = max_nodes + GRID;
        let mut nodes = Nodes {
            value_sum: Vec::with_capacity(room),
            rave_value_sum: Vec::with_capacity(room),
            visits: Vec::with_capacity(room),
            rave_visits: Vec::with_capacity(room),
            explore: Vec::with_capacity(room),
            links: Vec::with_capacity(room),
            points: Vec::with_capacity(room),
            values: vec![0.0; GRID],
            sqrt_ln: (0..SQRT_LN_TABLE as u32).map(sqrt_ln).collect(),
        };
        advise_huge_pages(&nodes.value_sum);
        advise_huge_pages(&nodes.rave_value_sum);
        advise_huge_pages(&nodes.visits);
        advise_huge_pages(&nodes.rave_visits);
        advise_huge_pages(&nodes.explore);
        advise_huge_pages(&nodes.links);
        advise_huge_pages(&nodes.points);
        nodes.push_all(&[PASS]);
        nodes
    }

    /// Appends a node for each of `points` (padded-grid indices or [`PASS`]), with no statistics and no
    /// children, and returns the first one's index. One resize per array, not a push per node and array.
    pub fn push_all(&mut self, points: &[u16]) -> usize {
        let first = self.count();
        let len = first + points.len();
        self.value_sum.resize(len, 0.0);
        self.rave_value_sum.resize(len, 0.0);
        self.visits.resize(len, 0);
        self.rave_visits.resize(len, 0);
        self.explore.resize(len, 1.0);
        self.links.extend(points.iter().map(|&point| Link {
            first_child: 0,
            child_count: 0,
            point,
        }));
        self.points.extend_from_slice(points);
        first
    }

    pub fn count(&self) -> usize {
        self.visits.len()
    }

    /// Records that `node`'s children are the `count` nodes from `first` on.
    pub fn set_children(&mut self, node: usize, first: usize, count: usize) {
        let link = &mut self.links[node];
        link.first_child = first as u32;
        link.child_count = count as u16;
    }

    pub fn children(&self, node: usize) -> Range<usize> {
        let link = self.links[node];
        let first = link.first_child as usize;
        first..first + link.child_count as usize
    }

    pub fn is_expanded(&self, node: usize) -> bool {
        self.links[node].first_child != 0
    }

    pub fn visits(&self, node: usize) -> u32 {
        self.visits[node]
    }

    pub fn point(&self, node: usize) -> u16 {
        self.links[node].point
    }

    pub fn mv(&self, node: usize) -> Move {
        match self.point(node) {
            PASS => Move::Pass,
            i => Move::Play(Point::from_index(i as usize)),
        }
    }

    /// Starts loading the statistics that selection among `node`'s children reads, the links the descent
    /// reads of the child it chooses, and the moves the AMAF update reads after the playout: far down the
    /// tree these loads then overlap the board move and the selection instead of stalling the descent.
    pub fn prefetch_children(&self, node: usize) {
        let children = self.children(node);
        prefetch(&self.visits[children.clone()]);
        prefetch(&self.rave_visits[children.clone()]);
        prefetch(&self.value_sum[children.clone()]);
        prefetch(&self.rave_value_sum[children.clone()]);
        prefetch(&self.explore[children.clone()]);
        prefetch(&self.points[children.clone()]);
        prefetch(&self.links[children]);
    }

    /// A playout through `node` ended with `value` for the node's mover.
    pub fn record_visit(&mut self, node: usize, value: f64) {
        self.visits[node] += 1;
        self.value_sum[node] += value;
        self.explore[node] = (self.visits[node] as f32).sqrt().recip();
    }

    /// AMAF: every child of `node` whose move its mover (`mark`, as in `first_owner`) played first after
    /// `node` shares the playout's `value`. About half the children match, at random, so the update is
    /// branch-free: a miss adds 0 and `value * 0.0`. [`opaque`] hides from the compiler that the hit
    /// is 0 or 1, which it would otherwise turn back into a branch (mispredicted half the time).
    pub fn share_amaf(&mut self, node: usize, first_owner: &FirstOwner, mark: u8, value: f64) {
        let children = self.children(node);
        let points = &self.points[children.clone()];
        let rave_visits = &mut self.rave_visits[children.clone()];
        let rave_value_sums = &mut self.rave_value_sum[children];
        for ((&point, rave_visits), rave_value_sum) in
            points.iter().zip(rave_visits).zip(rave_value_sums)
        {
            let hit = first_owner[usize::from(point) & (OWNER_SLOTS - 1)] == mark;
            let hit = opaque(u32::from(hit));
            *rave_visits += hit;
            *rave_value_sum += value * f64::from(hit);
        }
    }

    /// The child of `node` with the best UCT-RAVE value, the first of equals. The blend of the real mean
    /// and the RAVE mean, `(1 - b) * value_sum / n + b * rave_value_sum / rn` with
    /// `b = rn / (rn + n + rn * n / k)`, is computed over the common denominator: one division per
    /// child. Every child's value is computed first, without branches (so that the compiler vectorises
    /// the loop), then the best is picked.
    pub fn select(&mut self, node: usize, params: &SearchParams) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { self.select_avx2(node, params) };
        }
        self.select_values(node, params)
    }

    /// [`Nodes::select`] compiled for AVX2: four children per instruction instead of two. The same
    /// operations in the same order (no fused multiply-add), so the same values to the last bit.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn select_avx2(&mut self, node: usize, params: &SearchParams) -> usize {
        self.select_values(node, params)
    }

    #[inline(always)]
    fn select_values(&mut self, node: usize, params: &SearchParams) -> usize {
        let children = self.children(node);
        let visits = self.visits[node];
        let k = params.exploration
            * self
                .sqrt_ln
                .get(visits as usize)
                .copied()
                .unwrap_or_else(|| sqrt_ln(visits));
        let inv_equivalence = 1.0 / params.rave_equivalence;
        let values = &mut self.values[..children.len()];
        let stats = self.visits[children.clone()]
            .iter()
            .zip(&self.rave_visits[children.clone()])
            .zip(&self.value_sum[children.clone()])
            .zip(
                self.rave_value_sum[children.clone()]
                    .iter()
                    .zip(&self.explore[children.clone()]),
            );
        for (value, (((&visits, &rave_visits), &value_sum), (&rave_value_sum, &explore))) in
            values.iter_mut().zip(stats)
        {
            let n = f64::from(visits);
            let rn = f64::from(rave_visits);
            let rave_n = rn * inv_equivalence;
            let denominator = rn + n + rave_n * n;
            // Divided even when the denominator is 0 (a NaN, then discarded): a branch around the
            // division would stop the vectorisation.
            let mean = (value_sum * (1.0 + rave_n) + rave_value_sum) / denominator;
            let blend = if denominator > 0.0 { mean } else { 0.5 };
            *value = blend + k * f64::from(explore);
        }
        children.start + first_max(values)
    }

    /// The most visited child of `node` (the last of equals), if any child has a visit.
    pub fn most_visited_child(&self, node: usize) -> Option<usize> {
        self.children(node)
            .filter(|&c| self.visits[c] > 0)
            .max_by_key(|&c| self.visits[c])
    }
}

/// Nodes of a tree small enough to stay on ordinary pages (see [`Nodes::with_root`]).
const SMALL_TREE: usize = 1 << 16;

/// Asks the kernel to back the spare capacity of `items` past its first [`SMALL_TREE`] entries with
/// transparent huge pages (Linux; a no-op elsewhere, and harmless where the kernel declines).
fn advise_huge_pages<T>(items: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let size = std::mem::size_of::<T>();
        let base = items.as_ptr() as usize;
        let end = base + items.capacity() * size;
        let start = (base + SMALL_TREE * size).next_multiple_of(HUGE_PAGE);
        if start < end {
            // SAFETY: the range lies inside the vector's allocation, and the advice changes only how
            // the kernel backs it, never its contents.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = items;
}

/// Asks the processor to bring every cache line of `items` closer (a no-op on other targets).
#[inline]
fn prefetch<T>(items: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        const LINE: usize = 64;
        let bytes = std::mem::size_of_val(items);
        let start = items.as_ptr().cast::<i8>();
        // A plain loop: a `step_by` iterator here cost more than the prefetches.
        let mut offset = 0;
        while offset < bytes {
            // SAFETY: a prefetch is only a hint and never faults; the address lies inside `items`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
            offset += LINE;
        }
        // The last line, when `items` does not start at a line's beginning.
        if bytes > 0 {
            // SAFETY: as above.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(bytes - 1)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = items;
}

/// `value`, which the optimiser can no longer see through: like `std::hint::black_box`, but kept in
/// its register instead of going through memory (an empty `asm!` on the targets that have it).
#[inline(always)]
fn opaque(value: u32) -> u32 {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        // Widened to 64 bits: a full register needs no size modifier in the template on either target.
        let mut value = u64::from(value);
        // SAFETY: the assembly is only a comment naming the register: it reads and writes nothing.
        unsafe {
            std::arch::asm!("/* {0} */", inout(reg) value, options(pure, nomem, nostack, preserves_flags));
        }
        value as u32
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    std::hint::black_box(value)
}

/// The index of the first largest of `values` (none of them NaN; 0 if there are none). Four running
/// maxima instead of one break the chain of dependent comparisons; the first index holding the maximum
/// is looked up afterwards. (Tracking each lane's index in the same pass instead measured slower.)
#[inline(always)]
fn first_max(values: &[f64]) -> usize {
    let mut lanes = [f64::NEG_INFINITY; 4];
    let chunks = values.chunks_exact(4);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, &value) in lanes.iter_mut().zip(chunk) {
            if value > *lane {
                *lane = value;
            }
        }
    }
    let max =
        lanes.iter().chain(rest).fold(
            f64::NEG_INFINITY,
            |max, &value| if value > max { value } else { max },
        );
    values.iter().position(|&value| value == max).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::playout::FastRng;

    #[test]
    fn first_max_finds_the_first_of_equal_maxima() {
        assert_eq!(first_max(&[]), 0);
        assert_eq!(first_max(&[0.5]), 0);
        assert_eq!(first_max(&[0.1, 0.7, 0.3, 0.7, 0.2, 0.9, 0.9]), 5);
        assert_eq!(first_max(&[0.4, 0.1, 0.2, 0.3, 0.4]), 0);
        let values: Vec<f64> = (0..83).map(|i| f64::from((i * 37) % 83)).collect();
        assert_eq!(first_max(&values), 74);
        // Few distinct values, so that maxima repeat across lanes and the remainder.
        let mut rng = FastRng::new(3);
        for len in 1..40 {
            for _ in 0..50 {
                let values: Vec<f64> = (0..len).map(|_| rng.below(4) as f64).collect();
                let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let expected = values.iter().position(|&v| v == max);
                assert_eq!(Some(first_max(&values)), expected, "{values:?}");
            }
        }
    }

    /// A tree of one node with `count` children whose statistics are random (some never visited).
    fn random_children(rng: &mut FastRng, count: usize) -> Nodes {
        let mut nodes = Nodes::with_root(1000);
        let points: Vec<u16> = (0..count).map(|_| rng.below(GRID) as u16).collect();
        let first = nodes.push_all(&points);
        nodes.set_children(0, first, count);
        nodes.visits[0] = rng.below(5000) as u32;
        for c in first..first + count {
            let visits = rng.below(40) as u32;
            nodes.visits[c] = visits;
            nodes.value_sum[c] = rng.unit() * f64::from(visits);
            nodes.explore[c] = if visits == 0 {
                1.0
            } else {
                (visits as f32).sqrt().recip()
            };
            let rave_visits = rng.below(3) as u32 * rng.below(200) as u32;
            nodes.rave_visits[c] = rave_visits;
            nodes.rave_value_sum[c] = rng.unit() * f64::from(rave_visits);
        }
        nodes
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_selection_computes_the_same_values_to_the_bit() {
        // Where the processor lacks AVX2 the search never takes that path, and there is nothing to compare.
        if !std::is_x86_feature_detected!("avx2") {
            return;
        }
        let params = SearchParams::default();
        let mut rng = FastRng::new(17);
        let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        for count in [1, 2, 3, 4, 5, 7, 8, 9, 41, 82] {
            let mut nodes = random_children(&mut rng, count);
            let portable = nodes.select_values(0, &params);
            let portable_values = bits(&nodes.values[..count]);
            // SAFETY: the processor has AVX2, checked above.
            let avx2 = unsafe { nodes.select_avx2(0, &params) };
            assert_eq!(portable, avx2);
            assert_eq!(portable_values, bits(&nodes.values[..count]));
        }
    }
}
