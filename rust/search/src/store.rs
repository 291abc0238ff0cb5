//! The subproblem store of the dependency graph: one record per (capture set, remaining
//! depth), keyed by the capture bit-vector, in flat arenas that count their bytes.
//!
//! A record keeps only its best split. For a Rashomon set the store can also log every
//! (subproblem, split) the search bounded, with that split's bounds: off by default,
//! and then it costs one branch per expansion.

use hashbrown::HashTable;
use treeopt_core::hash;

/// Bytes of one logged split: the entry and its index slot (key, position, control byte,
/// with the table's spare room).
const SPLIT_ENTRY_BYTES: usize = std::mem::size_of::<SplitBounds>() + 16;

/// `best` of a record whose best known tree is a single leaf.
pub const LEAF: u32 = u32::MAX;

/// Bounds of one subproblem, in weight units (misclassified weight + penalty x leaves).
#[derive(Clone, Copy, Debug)]
pub struct Record {
    /// Lower bound steering the search: the proven bound, or with lower-bound guessing
    /// the larger guessed bound (a subproblem counts as solved once `ub` reaches it).
    pub lb: f64,
    /// Proven lower bound on the subproblem's optimal cost (equal to `lb` without guessing).
    pub proven: f64,
    /// Cost of the best tree known for it (the tree is rebuilt from `best`).
    pub ub: f64,
    /// Feature of the best known root split, or [`LEAF`].
    pub best: u32,
    /// Remaining depth (`u32::MAX` without a depth limit).
    pub depth: u32,
    hash: u64,
}

impl Record {
    /// True once the lower bound meets the upper bound.
    #[inline]
    pub fn solved(&self) -> bool {
        self.lb >= self.ub
    }
}

/// Hash of a capture set and remaining depth.
#[inline]
pub fn hash_key(words: &[u64], depth: u32) -> u64 {
    let start = (depth as u64 ^ 0x243F_6A88_85A3_08D3).wrapping_mul(hash::K);
    hash::finalize(words.iter().fold(start, |h, &w| hash::mix(h, w)))
}

/// The bounds of one split of one subproblem, as last tightened by the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitBounds {
    /// The record of the subproblem.
    pub record: u32,
    /// The split (its feature).
    pub split: u32,
    /// Proven lower bound on the cost of any tree rooted at this split.
    pub lb: f64,
    /// Cost of the best tree known rooted at this split.
    pub ub: f64,
}

/// Every (subproblem, split) bounded, one entry each, updated in place.
#[derive(Default)]
struct SplitLog {
    index: std::collections::HashMap<(u32, u32), u32>,
    entries: Vec<SplitBounds>,
}

/// Arena-backed map from (capture set, depth) to [`Record`].
pub struct Store {
    words: usize,
    keys: Vec<u64>,
    records: Vec<Record>,
    table: HashTable<u32>,
    memory_limit: usize,
    /// Bytes of the limit held by other structures of the search.
    external: usize,
    /// The log of every bounded split, when asked for.
    splits: Option<SplitLog>,
}

impl Store {
    pub fn new(words: usize, memory_limit: Option<usize>) -> Self {
        Store {
            words,
            keys: Vec::new(),
            records: Vec::new(),
            table: HashTable::new(),
            memory_limit: memory_limit.unwrap_or(usize::MAX),
            external: 0,
            splits: None,
        }
    }

    /// Starts logging every (subproblem, split) passed to [`Store::record_split`].
    pub fn log_splits(&mut self) {
        self.splits.get_or_insert_with(SplitLog::default);
    }

    /// True when splits are logged.
    #[inline]
    pub fn logs_splits(&self) -> bool {
        self.splits.is_some()
    }

    /// Logs (or updates) the bounds of `split` of record `record`; false when the memory
    /// limit has no room for a new entry. Does nothing (and succeeds) when not logging.
    pub fn record_split(&mut self, record: u32, split: u32, lb: f64, ub: f64) -> bool {
        let room = self.memory_limit.saturating_sub(self.external + self.bytes());
        let Some(log) = &mut self.splits else { return true };
        let entry = SplitBounds { record, split, lb, ub };
        if let Some(&i) = log.index.get(&(record, split)) {
            log.entries[i as usize] = entry;
            return true;
        }
        if log.entries.len() == log.entries.capacity() {
            // Grow by doubling, within the memory limit.
            let extra = log.entries.len().max(64);
            if room < extra * SPLIT_ENTRY_BYTES
                || log.entries.try_reserve_exact(extra).is_err()
                || log.index.try_reserve(extra).is_err()
            {
                return false;
            }
        }
        log.index.insert((record, split), log.entries.len() as u32);
        log.entries.push(entry);
        true
    }

    /// The logged splits, in the order first bounded (empty when not logging).
    pub fn splits(&self) -> &[SplitBounds] {
        self.splits.as_ref().map_or(&[], |log| &log.entries)
    }

    /// Tells the store how many bytes of the memory limit the rest of the search holds.
    pub fn set_external(&mut self, bytes: usize) {
        self.external = bytes;
    }

    /// Number of stored subproblems.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// The capture set of record `id`.
    #[inline]
    pub fn key(&self, id: u32) -> &[u64] {
        let s = id as usize * self.words;
        &self.keys[s..s + self.words]
    }

    #[inline]
    pub fn get(&self, id: u32) -> &Record {
        &self.records[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Record {
        &mut self.records[id as usize]
    }

    /// Looks a subproblem up.
    #[inline]
    pub fn find(&self, set: &[u64], depth: u32) -> Option<u32> {
        let hash = hash_key(set, depth);
        let (keys, records, w) = (&self.keys, &self.records, self.words);
        self.table
            .find(hash, |&id| {
                let r = &records[id as usize];
                r.hash == hash && r.depth == depth && &keys[id as usize * w..(id as usize + 1) * w] == set
            })
            .copied()
    }

    /// Inserts a new subproblem (the caller checked it is absent) with its search and
    /// proven lower bounds and the cost of a leaf. `None` when the
    /// memory limit (or the allocator) refuses the space.
    pub fn insert(&mut self, set: &[u64], depth: u32, lb: f64, proven: f64, ub: f64) -> Option<u32> {
        if self.records.len() == self.records.capacity() && !self.grow() {
            return None;
        }
        let id = self.records.len() as u32;
        let hash = hash_key(set, depth);
        self.keys.extend_from_slice(set);
        self.records.push(Record { lb, proven, ub, best: LEAF, depth, hash });
        let records = &self.records;
        self.table.insert_unique(hash, id, |&i| records[i as usize].hash);
        Some(id)
    }

    fn per_record_bytes(&self) -> usize {
        self.words * 8 + std::mem::size_of::<Record>()
    }

    fn table_bytes(capacity: usize) -> usize {
        // hashbrown keeps at most 7/8 of its power-of-two buckets full; 4 + 1 bytes each.
        capacity.saturating_mul(8).div_ceil(7).max(1).next_power_of_two() * 5
    }

    /// Bytes currently reserved by the store.
    pub fn bytes(&self) -> usize {
        self.records.capacity() * self.per_record_bytes() + Self::table_bytes(self.table.capacity()) + self.log_bytes()
    }

    /// Bytes of the split log.
    fn log_bytes(&self) -> usize {
        self.splits.as_ref().map_or(0, |l| l.entries.capacity() * SPLIT_ENTRY_BYTES)
    }

    /// Makes room for more records within the memory limit.
    fn grow(&mut self) -> bool {
        let len = self.records.len();
        let mut cap = (len * 2).max(1024);
        let per = self.per_record_bytes();
        let limit = self.memory_limit.saturating_sub(self.external + self.log_bytes());
        while cap > len && cap * per + Self::table_bytes(cap) > limit {
            cap = len + (cap - len) / 2;
        }
        if cap <= len {
            return false;
        }
        let extra = cap - len;
        if self.keys.try_reserve_exact(extra * self.words).is_err()
            || self.records.try_reserve_exact(extra).is_err()
        {
            return false;
        }
        let records = &self.records;
        self.table.try_reserve(extra, |&i| records[i as usize].hash).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted_by_set_and_depth() {
        let mut store = Store::new(2, None);
        let a = store.insert(&[0b1011, 1], 3, 1.0, 1.0, 4.0).unwrap();
        let b = store.insert(&[0b1011, 1], 2, 0.5, 0.5, 4.0).unwrap();
        let c = store.insert(&[0b0011, 1], 3, 2.0, 2.0, 2.5).unwrap();
        assert_eq!((store.find(&[0b1011, 1], 3), store.find(&[0b1011, 1], 2), store.find(&[0b0011, 1], 3)), (Some(a), Some(b), Some(c)));
        assert_eq!(store.find(&[0b0011, 1], 2), None);
        assert_eq!(store.key(c), &[0b0011, 1]);
        let r = store.get(a);
        assert_eq!((r.lb, r.proven, r.ub, r.best, r.depth), (1.0, 1.0, 4.0, LEAF, 3));
        assert!(!r.solved());
        store.get_mut(a).lb = 4.0;
        assert!(store.get(a).solved());
        assert_eq!(store.len(), 3);
    }

    #[test]
    fn a_memory_limit_refuses_records_it_has_no_room_for() {
        let mut store = Store::new(4, Some(1 << 16));
        let mut n = 0u64;
        while store.insert(&[n, 0, 0, 0], 1, 0.0, 0.0, 1.0).is_some() {
            n += 1;
            assert!(n < 1 << 16, "the limit never refused");
        }
        assert!(n > 0 && store.bytes() <= 1 << 16, "{n} records in {} bytes", store.bytes());
        assert_eq!(store.find(&[n - 1, 0, 0, 0], 1), Some(n as u32 - 1));
    }

    #[test]
    fn the_split_log_is_off_and_free_by_default() {
        let mut store = Store::new(1, None);
        let id = store.insert(&[0b111], 2, 0.0, 0.0, 3.0).unwrap();
        let bytes = store.bytes();
        assert!(!store.logs_splits());
        assert!(store.record_split(id, 4, 1.0, 2.0));
        assert!(store.splits().is_empty());
        assert_eq!(store.bytes(), bytes);
    }

    #[test]
    fn the_split_log_keeps_one_entry_per_subproblem_and_split() {
        let mut store = Store::new(1, None);
        store.log_splits();
        let a = store.insert(&[0b111], 2, 0.0, 0.0, 3.0).unwrap();
        let b = store.insert(&[0b011], 1, 0.0, 0.0, 2.0).unwrap();
        assert!(store.record_split(a, 4, 1.0, 2.5));
        assert!(store.record_split(a, 1, 1.5, 3.0));
        assert!(store.record_split(b, 4, 0.5, 1.0));
        // Tightened later: updated in place, in the order first logged.
        assert!(store.record_split(a, 4, 2.0, 2.0));
        let want = [
            SplitBounds { record: a, split: 4, lb: 2.0, ub: 2.0 },
            SplitBounds { record: a, split: 1, lb: 1.5, ub: 3.0 },
            SplitBounds { record: b, split: 4, lb: 0.5, ub: 1.0 },
        ];
        assert_eq!(store.splits(), &want);
        assert!(store.bytes() >= 64 * SPLIT_ENTRY_BYTES);
    }

    #[test]
    fn the_split_log_stays_within_the_memory_limit() {
        let mut store = Store::new(1, Some(20_000));
        store.log_splits();
        let id = store.insert(&[1], 1, 0.0, 0.0, 1.0).unwrap();
        let mut logged = 0;
        while store.record_split(id, logged, 0.0, 1.0) {
            logged += 1;
            assert!(logged < 100_000, "the limit never refused");
        }
        assert!(logged > 0);
        assert!(store.bytes() <= 20_000, "{} bytes", store.bytes());
        assert_eq!(store.splits().len(), logged as usize);
    }
}
