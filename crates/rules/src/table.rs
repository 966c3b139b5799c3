//! The hash maps and sets of the rules and the operations: one hash-table code for every key and value
//! type.
//!
//! A `hashbrown::HashMap<K, V>` carries its own copy of the table code (growth, rehashing, insertion)
//! for each `(K, V)` it is used with: sixteen copies made about 26 KB of the core module. Here every
//! map keeps its entries in a `Vec` in insertion order and finds them through one table of
//! `(hash, position)` pairs, the same type for every map, so the module holds the table code once; what
//! is generic per key type is only hashing a key and comparing it. A lookup compares the full 64-bit
//! hash first and then the real key, so colliding keys are told apart as before. The hasher is
//! hashbrown's default (foldhash, seeded per process), as the maps had. Iteration is in insertion
//! order (the rules never depended on a hash table's order, which was random per process).
//!
//! Not `indexmap` (which serde_json links already) either: its index table is rehashed through a closure
//! that reads each map's own entries, so every `(K, V)` would still bring its own copy of the growth
//! code; here the table's element and hasher are the same type for every map.

use std::fmt;
use std::hash::{BuildHasher, Hash};

use hashbrown::{DefaultHashBuilder, Equivalent, HashTable};

/// Up to this many entries a map is scanned, not hashed: most of the per-call maps hold a handful of
/// entries, where comparing keys costs less than hashing them and a table's allocation. Bounded, so a
/// host's many keys cannot make lookups quadratic.
const SCAN: usize = 8;

/// Positions by hash: the one table type behind every [`HashMap`] (non-generic, so its code is in the
/// module once).
#[derive(Default, Clone)]
struct Slots {
    table: HashTable<(u64, usize)>,
}

fn hash_of(slot: &(u64, usize)) -> u64 {
    slot.0
}

impl Slots {
    fn with_capacity(capacity: usize) -> Self {
        Slots {
            table: HashTable::with_capacity(capacity),
        }
    }

    /// The position for which `eq` holds: by the table with `hash`, else (a small map, no hash) the first
    /// of `0..len`.
    fn lookup(
        &self,
        hash: Option<u64>,
        len: usize,
        eq: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        match hash {
            Some(hash) => self.find(hash, eq),
            None => (0..len).position(eq),
        }
    }

    /// The position whose hash is `hash` and for which `eq` holds.
    fn find(&self, hash: u64, eq: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        self.table
            .find(hash, |&(h, at)| h == hash && eq(at))
            .map(|&(_, at)| at)
    }

    fn insert(&mut self, hash: u64, at: usize) {
        self.table.insert_unique(hash, (hash, at), hash_of);
    }

    /// Forgets position `at` (of hash `hash`).
    fn remove(&mut self, hash: u64, at: usize) {
        if let Ok(entry) = self.table.find_entry(hash, |&(_, a)| a == at) {
            entry.remove();
        }
    }

    /// Position `from` (of hash `hash`) is now `to`.
    fn moved(&mut self, hash: u64, from: usize, to: usize) {
        if let Some(slot) = self.table.find_mut(hash, |&(_, a)| a == from) {
            slot.1 = to;
        }
    }

    fn reserve(&mut self, additional: usize) {
        self.table.reserve(additional, hash_of);
    }
}

/// A hash map with the part of `hashbrown::HashMap`'s interface the crates use; entries in insertion
/// order (see the module's documentation for why it is not hashbrown's map).
#[derive(Clone)]
pub struct HashMap<K, V> {
    entries: Vec<(K, V)>,
    slots: Slots,
    hasher: DefaultHashBuilder,
}

impl<K, V> Default for HashMap<K, V> {
    fn default() -> Self {
        HashMap {
            entries: Vec::new(),
            slots: Slots::default(),
            hasher: DefaultHashBuilder::default(),
        }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for HashMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K, V> HashMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty map with room for `capacity` entries.
    pub fn with_capacity(capacity: usize) -> Self {
        HashMap {
            entries: Vec::with_capacity(capacity),
            slots: if capacity > SCAN {
                Slots::with_capacity(capacity)
            } else {
                Slots::default()
            },
            hasher: DefaultHashBuilder::default(),
        }
    }

    /// How many entries the map holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map holds no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> + '_ {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The keys, in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values, in insertion order.
    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Room for `additional` more entries.
    pub fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
        if self.entries.len() + additional > SCAN {
            self.slots.reserve(additional);
        }
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.slots.table.clear();
    }
}

impl<K: Hash + Eq, V> HashMap<K, V> {
    /// Whether lookups go through the table (past [`SCAN`] entries) rather than a scan.
    fn indexed(&self) -> bool {
        !self.slots.table.is_empty()
    }

    #[inline(never)]
    fn position<Q: Hash + Equivalent<K> + ?Sized>(&self, key: &Q) -> Option<usize> {
        let hash = self.indexed().then(|| self.hasher.hash_one(key));
        let entries = &self.entries;
        self.slots.lookup(hash, entries.len(), &mut |at| {
            entries.get(at).is_some_and(|(k, _)| key.equivalent(k))
        })
    }

    /// Puts every entry into the table (once the map outgrows a scan).
    #[inline(never)]
    fn index_all(&mut self) {
        for (at, (k, _)) in self.entries.iter().enumerate() {
            self.slots.insert(self.hasher.hash_one(k), at);
        }
    }

    /// The value of `key`.
    pub fn get<Q: Hash + Equivalent<K> + ?Sized>(&self, key: &Q) -> Option<&V> {
        let at = self.position(key)?;
        self.entries.get(at).map(|(_, v)| v)
    }

    /// The value of `key`, to change.
    pub fn get_mut<Q: Hash + Equivalent<K> + ?Sized>(&mut self, key: &Q) -> Option<&mut V> {
        let at = self.position(key)?;
        self.entries.get_mut(at).map(|(_, v)| v)
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q: Hash + Equivalent<K> + ?Sized>(&self, key: &Q) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key` to `value`; the value it had, if any (the key kept is the first one, as hashbrown's).
    #[inline(never)]
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let hash = self.indexed().then(|| self.hasher.hash_one(&key));
        let entries = &self.entries;
        let found = self.slots.lookup(hash, entries.len(), &mut |at| {
            entries.get(at).is_some_and(|(k, _)| *k == key)
        });
        if let Some((_, v)) = found.and_then(|at| self.entries.get_mut(at)) {
            return Some(std::mem::replace(v, value));
        }
        let at = self.entries.len();
        self.entries.push((key, value));
        match hash {
            Some(hash) => self.slots.insert(hash, at),
            None if at == SCAN => self.index_all(),
            None => {}
        }
        None
    }

    /// Removes `key`; the value it had. The last entry takes its place (insertion order is kept for
    /// the others).
    pub fn remove<Q: Hash + Equivalent<K> + ?Sized>(&mut self, key: &Q) -> Option<V> {
        let at = self.position(key)?;
        let last = self.entries.len().checked_sub(1)?;
        if self.indexed() {
            self.slots.remove(self.hasher.hash_one(key), at);
            if at != last {
                if let Some((moved, _)) = self.entries.get(last) {
                    let moved = self.hasher.hash_one(moved);
                    self.slots.moved(moved, last, at);
                }
            }
        }
        Some(self.entries.swap_remove(at).1)
    }
}

/// Equal when both hold the same keys with equal values, in any order (as hashbrown's maps compare).
impl<K: Hash + Eq, V: PartialEq> PartialEq for HashMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl<K: Hash + Eq, V: Eq> Eq for HashMap<K, V> {}

impl<K: Hash + Eq, V> FromIterator<(K, V)> for HashMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = HashMap::new();
        map.extend(iter);
        map
    }
}

impl<K: Hash + Eq, V> Extend<(K, V)> for HashMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K, V> IntoIterator for HashMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// A hash set over [`HashMap`]: members in insertion order.
#[derive(Clone)]
pub struct HashSet<K> {
    map: HashMap<K, ()>,
}

impl<K> Default for HashSet<K> {
    fn default() -> Self {
        HashSet {
            map: HashMap::default(),
        }
    }
}

impl<K: fmt::Debug> fmt::Debug for HashSet<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<K> HashSet<K> {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set with room for `capacity` members.
    pub fn with_capacity(capacity: usize) -> Self {
        HashSet {
            map: HashMap::with_capacity(capacity),
        }
    }

    /// How many members the set holds.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the set holds no member.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The members, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = &K> + '_ {
        self.map.keys()
    }
}

impl<K: Hash + Eq> HashSet<K> {
    /// Adds `key`; whether it was not there yet.
    pub fn insert(&mut self, key: K) -> bool {
        self.map.insert(key, ()).is_none()
    }

    /// Whether `key` is a member.
    pub fn contains<Q: Hash + Equivalent<K> + ?Sized>(&self, key: &Q) -> bool {
        self.map.contains_key(key)
    }

    /// Removes `key`; whether it was there.
    pub fn remove<Q: Hash + Equivalent<K> + ?Sized>(&mut self, key: &Q) -> bool {
        self.map.remove(key).is_some()
    }
}

impl<K: Hash + Eq> FromIterator<K> for HashSet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut set = HashSet::new();
        set.extend(iter);
        set
    }
}

impl<K: Hash + Eq> Extend<K> for HashSet<K> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, iter: I) {
        self.map.extend(iter.into_iter().map(|k| (k, ())));
    }
}

impl<'a, K> IntoIterator for &'a HashSet<K> {
    type Item = &'a K;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, ())>, fn(&'a (K, ())) -> &'a K>;

    fn into_iter(self) -> Self::IntoIter {
        self.map.entries.iter().map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hasher;

    #[test]
    fn insert_get_remove_keep_order() {
        let mut m: HashMap<String, usize> = HashMap::new();
        for (i, k) in ["a", "b", "c", "d"].iter().enumerate() {
            assert_eq!(m.insert((*k).to_owned(), i), None);
        }
        assert_eq!(m.insert("b".to_owned(), 9), Some(1));
        assert_eq!(m.get("b"), Some(&9));
        assert_eq!(m.remove("a"), Some(0));
        assert_eq!(m.get("a"), None);
        // the last entry took the removed one's place and is still found
        assert_eq!(m.get("d"), Some(&3));
        assert_eq!(m.keys().cloned().collect::<Vec<_>>(), ["d", "b", "c"]);
        assert_eq!(m.remove("c"), Some(2));
        assert_eq!(m.len(), 2);
        *m.get_mut("d").unwrap() += 1;
        assert_eq!(m.get("d"), Some(&4));
        assert!(!m.contains_key("zz"));
    }

    /// A key whose hash is the same for every value: lookups must still compare the real key.
    #[derive(PartialEq, Eq, Debug)]
    struct Colliding(u32);
    impl Hash for Colliding {
        fn hash<H: Hasher>(&self, state: &mut H) {
            state.write_u8(7);
        }
    }

    #[test]
    fn colliding_keys_compare_the_real_key() {
        let mut m: HashMap<Colliding, u32> = HashMap::with_capacity(2);
        for i in 0..100 {
            m.insert(Colliding(i), i * 2);
        }
        for i in 0..100 {
            assert_eq!(m.get(&Colliding(i)), Some(&(i * 2)));
        }
        assert_eq!(m.get(&Colliding(100)), None);
        for i in (0..100).step_by(3) {
            assert_eq!(m.remove(&Colliding(i)), Some(i * 2));
        }
        for i in 0..100 {
            let want = (i % 3 != 0).then_some(i * 2);
            assert_eq!(m.get(&Colliding(i)).copied(), want);
        }
    }

    /// Past the scan's length the table takes over; removals keep both ways of finding entries right.
    #[test]
    fn scanned_then_indexed() {
        for capacity in [0, 4, 40] {
            let mut m: HashMap<String, usize> = HashMap::with_capacity(capacity);
            for i in 0..20 {
                assert_eq!(m.insert(i.to_string(), i), None);
                for j in 0..=i {
                    assert_eq!(m.get(j.to_string().as_str()), Some(&j));
                }
            }
            for i in 0..15 {
                assert_eq!(m.remove(i.to_string().as_str()), Some(i));
            }
            for i in 0..20 {
                assert_eq!(
                    m.get(i.to_string().as_str()).copied(),
                    (i >= 15).then_some(i)
                );
                assert_eq!(m.insert(i.to_string(), i + 1).is_some(), i >= 15);
            }
            assert_eq!(m.len(), 20);
            let same: HashMap<String, usize> =
                (0..20).rev().map(|i| (i.to_string(), i + 1)).collect();
            assert_eq!(m, same);
        }
    }

    #[test]
    fn sets() {
        let mut s: HashSet<&str> = ["x", "y"].into_iter().collect();
        assert!(!s.insert("x"));
        assert!(s.insert("z"));
        assert!(s.contains("y"));
        assert!(s.remove("y"));
        assert!(!s.contains("y"));
        assert_eq!(s.iter().copied().collect::<Vec<_>>(), ["x", "z"]);
        assert_eq!((&s).into_iter().count(), 2);
    }
}
