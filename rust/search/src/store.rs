//! The subproblem store of the dependency graph: one record per (capture set, remaining
//! depth), keyed by the capture bit-vector, in flat arenas that count their bytes.

use hashbrown::HashTable;

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
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (depth as u64 ^ 0x243F_6A88_85A3_08D3).wrapping_mul(K);
    for &w in words {
        h = (h ^ w).wrapping_mul(K);
        h ^= h >> 32;
    }
    // murmur3 finaliser: hashbrown uses both the low and the top bits.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h
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
        }
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
        self.records.capacity() * self.per_record_bytes() + Self::table_bytes(self.table.capacity())
    }

    /// Makes room for more records within the memory limit.
    fn grow(&mut self) -> bool {
        let len = self.records.len();
        let mut cap = (len * 2).max(1024);
        let per = self.per_record_bytes();
        let limit = self.memory_limit.saturating_sub(self.external);
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
