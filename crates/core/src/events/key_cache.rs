//! The key cache: short object keys with ids that stay valid from one
//! decode to the next, so the builder makes each key's string once, and
//! object shapes (sequences of key ids) with ids of their own.

/// Short object keys seen before, each with an id (from 1). Ids stay
/// valid until the cache is full and renews itself, which bumps its
/// generation; the caller renews it only between decodes.
pub struct KeyCache {
    /// Open addressing, `2 * MAX_KEYS` slots; `id` 0 marks a free one.
    slots: Box<[Slot]>,
    /// The keys' bytes, each NUL-terminated, at fixed addresses: the
    /// capacity is reserved once and never exceeded.
    bytes: Vec<u8>,
    /// Keys held (ids run from 1 to `count`).
    count: u32,
    /// `known[id]`: the key of that id, as its slot (index 0 unused).
    known: Box<[Slot]>,
    /// `after[id]`: the id of the key that last followed key `id` in an
    /// object (`after[0]`: the last first key), 0 for none. Objects of one
    /// shape repeat their keys in order, so this is usually the next key,
    /// found without hashing or even measuring it. From `MAX_KEYS + 1` on,
    /// the first keys of objects by the key they stand under (see
    /// `first_under`).
    after: Box<[u32]>,
    /// Lookups that found the cache full since it last renewed.
    misses: u32,
    generation: u32,
    shapes: Shapes,
}

/// Object shapes seen since the key cache last renewed: each sequence of
/// key ids an object had, with an id (from 1). Shape ids name key ids, so
/// they renew with them.
struct Shapes {
    /// Open addressing, `2 * MAX_SHAPES` slots: a shape's hash and id; id
    /// 0 marks a free slot.
    slots: Box<[(u64, u32)]>,
    /// The key ids of every shape, back to back.
    ids: Vec<u32>,
    /// `spans[id]`: where shape `id`'s key ids are in `ids` (index 0
    /// unused).
    spans: Vec<(u32, u32)>,
}

/// Shapes held at most, and the most keys a shape may have.
const MAX_SHAPES: usize = 4096;
const MAX_SHAPE_KEYS: usize = 256;
/// Key ids held at most, for all shapes.
const MAX_SHAPE_IDS: usize = 1 << 16;

impl Default for Shapes {
    fn default() -> Self {
        Shapes { slots: vec![(0, 0); 2 * MAX_SHAPES].into_boxed_slice(), ids: Vec::new(), spans: vec![(0, 0)] }
    }
}

impl Shapes {
    fn clear(&mut self) {
        self.slots.fill((0, 0));
        self.ids.clear();
        self.spans.truncate(1);
    }

    /// The id of the shape with key ids `keys`, adding it when new; 0 when
    /// a key has no id (0), or there are none or too many, or no room.
    fn id(&mut self, keys: &[u32]) -> u32 {
        if keys.is_empty() || keys.len() > MAX_SHAPE_KEYS {
            return 0;
        }
        let mut h = keys.len() as u64;
        let mut any_unknown = false;
        for &k in keys {
            any_unknown |= k == 0;
            h = (h ^ k as u64).wrapping_mul(MULTIPLIER);
        }
        if any_unknown {
            return 0;
        }
        let mask = self.slots.len() - 1;
        let mut at = (h >> 40) as usize & mask;
        loop {
            let (hash, id) = self.slots[at];
            if id == 0 {
                break;
            }
            if hash == h {
                let (from, to) = self.spans[id as usize];
                if &self.ids[from as usize..to as usize] == keys {
                    return id;
                }
            }
            at = (at + 1) & mask;
        }
        if self.spans.len() > MAX_SHAPES || self.ids.len() + keys.len() > MAX_SHAPE_IDS {
            return 0;
        }
        let id = self.spans.len() as u32;
        let from = self.ids.len() as u32;
        self.ids.extend_from_slice(keys);
        self.spans.push((from, self.ids.len() as u32));
        self.slots[at] = (h, id);
        id
    }
}

/// A key as two words that cover all its bytes (see `words`), its length,
/// id and stored bytes: keys of up to 16 bytes compare without reading
/// their bytes.
#[derive(Clone, Copy)]
struct Slot {
    a: u64,
    b: u64,
    len: u32,
    id: u32,
    stored: *const u8,
}

impl Default for Slot {
    fn default() -> Self {
        Slot { a: 0, b: 0, len: 0, id: 0, stored: std::ptr::null() }
    }
}

/// Keys cached at most, and the longest cached.
const MAX_KEYS: usize = 1024;
const MAX_KEY_LEN: usize = 64;
/// Misses (the cache being full) before it renews: a document with keys
/// that never repeat (ids as keys) must not make every decode renew it.
const RENEW_AFTER_MISSES: u32 = 64 * MAX_KEYS as u32;

impl Default for KeyCache {
    fn default() -> Self {
        KeyCache {
            slots: vec![Slot::default(); 2 * MAX_KEYS].into_boxed_slice(),
            bytes: Vec::with_capacity(MAX_KEYS * (MAX_KEY_LEN + 1)),
            count: 0,
            known: vec![Slot::default(); MAX_KEYS + 1].into_boxed_slice(),
            after: vec![0; 2 * (MAX_KEYS + 1)].into_boxed_slice(),
            misses: 0,
            generation: 0,
            shapes: Shapes::default(),
        }
    }
}

/// Two words holding every byte of `key` (overlapping when it is short),
/// read without going past its end.
#[inline(always)]
fn words(key: &[u8]) -> (u64, u64) {
    let n = key.len();
    let p = key.as_ptr();
    // SAFETY: every read is within the `n` bytes of `key`.
    unsafe {
        match n {
            0 => (0, 0),
            1..=3 => (*p as u64 | (*p.add(n / 2) as u64) << 8 | (*p.add(n - 1) as u64) << 16, 0),
            4..=7 => (p.cast::<u32>().read_unaligned() as u64, p.add(n - 4).cast::<u32>().read_unaligned() as u64),
            _ => (p.cast::<u64>().read_unaligned(), p.add(n - 8).cast::<u64>().read_unaligned()),
        }
    }
}

const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

impl KeyCache {
    /// The id of `key` and its stored bytes, adding it when new; `None`
    /// when it is too long or the cache is full. `key` must hold no NUL
    /// (keys of a strict document without escapes hold none).
    #[inline]
    pub fn id(&mut self, key: &[u8]) -> Option<(u32, *const u8)> {
        let n = key.len();
        if n > MAX_KEY_LEN {
            return None;
        }
        let (a, b) = words(key);
        // Multiplicative hashing: the top bits of the product are the mixed ones.
        let mut h = (a ^ b.rotate_left(29) ^ n as u64).wrapping_mul(MULTIPLIER);
        if n > 16 {
            for w in key[8..n - 8].chunks(8) {
                h = (h ^ words(w).0).wrapping_mul(MULTIPLIER);
            }
        }
        let mask = self.slots.len() - 1;
        let mut at = (h >> 40) as usize & mask;
        loop {
            let slot = &self.slots[at];
            if slot.id == 0 {
                return self.add(key, at, a, b);
            }
            if slot.a == a && slot.b == b && slot.len == n as u32 {
                // SAFETY: `stored` points at the slot's key, `len` bytes
                // (plus its NUL) inside `bytes`, which never moves.
                if n <= 16 || unsafe { std::slice::from_raw_parts(slot.stored, n) } == key {
                    return Some((slot.id, slot.stored));
                }
            }
            at = (at + 1) & mask;
        }
    }

    #[cold]
    fn add(&mut self, key: &[u8], at: usize, a: u64, b: u64) -> Option<(u32, *const u8)> {
        if self.count >= MAX_KEYS as u32 {
            self.misses = self.misses.saturating_add(1);
            return None;
        }
        let start = self.bytes.len();
        // Within the capacity reserved at creation: stored keys never move.
        self.bytes.extend_from_slice(key);
        self.bytes.push(0);
        self.count += 1;
        let stored = self.bytes[start..].as_ptr();
        self.slots[at] = Slot { a, b, len: key.len() as u32, id: self.count, stored };
        self.known[self.count as usize] = self.slots[at];
        Some((self.count, stored))
    }

    /// Forgets every key once the cache has been full for a while, so that
    /// keys of later documents get ids too. Only between decodes: events of
    /// a decode still being read point at the keys.
    pub fn renew_if_full(&mut self) {
        if self.misses >= RENEW_AFTER_MISSES {
            self.slots.fill(Slot::default());
            self.known.fill(Slot::default());
            self.after.fill(0);
            self.bytes.clear();
            self.count = 0;
            self.misses = 0;
            self.shapes.clear();
            self.generation = self.generation.wrapping_add(1);
        }
    }

    /// The key predicted to follow key `last` (0 or a `first_under`: an
    /// object's first key)
    /// when the string body starting at `input[start]` is that key: its
    /// bytes then a closing quote (a cached key holds no backslash, so
    /// that quote ends the body). Its id and stored bytes, as `id` gives.
    #[inline(always)]
    pub fn next(&self, last: u32, input: &[u8], start: usize) -> Option<(u32, *const u8)> {
        let id = *self.after.get(last as usize)?;
        let slot = &self.known[id as usize];
        let n = slot.len as usize;
        // (`id` 0 is the empty slot 0, whose `stored` is null.)
        if id == 0 || input.get(start + n) != Some(&b'"') {
            return None;
        }
        let key = &input[start..start + n];
        if words(key) != (slot.a, slot.b) {
            return None;
        }
        if n > 16 {
            // The bytes between the first and the last eight (which the
            // words compared), eight at a time, the last eight of them
            // overlapping the ones before when need be.
            // SAFETY: `stored` holds the slot's `n` bytes.
            let stored = unsafe { std::slice::from_raw_parts(slot.stored, n) };
            let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
            let mut at = 8;
            while at < n - 8 {
                let x = at.min(n - 16);
                if word(key, x) != word(stored, x) {
                    return None;
                }
                at += 8;
            }
        }
        Some((id, slot.stored))
    }

    /// What stands for "no key yet" in `next` and `follows` for an object
    /// that is the value of key `parent` (an id, 0 for none), directly or
    /// as an element of arrays: objects under one key tend to have one
    /// shape, while the objects of a document's other keys have others, so
    /// their first keys are predicted apart.
    #[inline(always)]
    pub fn first_under(parent: u32) -> u32 {
        MAX_KEYS as u32 + 1 + parent
    }

    /// The length in bytes of key `id` (a valid id).
    #[inline(always)]
    pub fn len_of(&self, id: u32) -> usize {
        self.known[id as usize].len as usize
    }

    /// Records that key `id` followed key `last` (see `next`).
    #[inline(always)]
    pub fn follows(&mut self, last: u32, id: u32) {
        if let Some(a) = self.after.get_mut(last as usize) {
            *a = id;
        }
    }

    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// The shape id of an object whose keys have ids `keys`, in order (0
    /// for a key without one): objects with the same id have the same
    /// keys. 0 when there is none to give.
    #[inline]
    pub fn shape(&mut self, keys: &[u32]) -> u32 {
        self.shapes.id(keys)
    }
}
