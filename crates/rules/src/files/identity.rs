//! File identity: the SDK keys a file by `` `${storage_session_id}\0${id}` ``.
//!
//! [`Identity`] compares and hashes exactly as that joined string would (so a NUL inside a storage id
//! collides the way it does upstream) without building the string on hot paths.

use std::hash::{Hash, Hasher};

use crate::json::lanes;

/// A file's identity: its storage session and its id, compared as their NUL-joined text.
#[derive(Debug, Clone, Copy)]
pub struct Identity<'a> {
    storage: &'a str,
    id: &'a str,
}

impl<'a> Identity<'a> {
    /// The identity of file `id` in storage session `storage`.
    pub fn new(storage: &'a str, id: &'a str) -> Self {
        Identity { storage, id }
    }

    /// The storage part.
    pub fn storage(&self) -> &'a str {
        self.storage
    }

    /// The joined text `storage\0id`.
    pub fn to_key(&self) -> String {
        identity_key(self.storage, self.id)
    }

    fn bytes(&self) -> impl Iterator<Item = u8> + 'a {
        self.storage
            .bytes()
            .chain(std::iter::once(0))
            .chain(self.id.bytes())
    }

    /// Whether this identity's joined text equals `key`.
    pub fn matches_key(&self, key: &str) -> bool {
        let (k, s) = (key.as_bytes(), self.storage.len());
        k.len() == s + 1 + self.id.len()
            && k.get(..s) == Some(self.storage.as_bytes())
            && k.get(s) == Some(&0)
            && k.get(s + 1..) == Some(self.id.as_bytes())
    }
}

impl PartialEq for Identity<'_> {
    fn eq(&self, other: &Self) -> bool {
        if self.storage.len() == other.storage.len() {
            // The common case: the NUL sits at the same place, so the parts compare directly.
            lanes::equal(self.storage.as_bytes(), other.storage.as_bytes())
                && lanes::equal(self.id.as_bytes(), other.id.as_bytes())
        } else {
            self.storage.len() + self.id.len() == other.storage.len() + other.id.len()
                && self.bytes().eq(other.bytes())
        }
    }
}

impl Eq for Identity<'_> {}

impl Hash for Identity<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Only what follows the joined text's last NUL: equal joined texts hash alike whatever the split
        // (the id, unless it holds a NUL itself), with a hasher that reads each piece in one go.
        let tail = match self.id.rfind('\0') {
            Some(at) => self.id.get(at + 1..).unwrap_or(""),
            None => self.id,
        };
        tail.hash(state);
    }
}

/// An [`Identity`] that owns (shares) its text, for keys of maps that outlive a call: it compares and
/// hashes as the borrowed one does, and costs two reference-count bumps, not a joined string.
#[derive(Debug, Clone)]
pub struct OwnedIdentity {
    storage: crate::json::Str<'static>,
    id: crate::json::Str<'static>,
}

impl OwnedIdentity {
    /// The identity of file `id` in storage session `storage`.
    pub fn new(storage: crate::json::Str<'static>, id: crate::json::Str<'static>) -> Self {
        OwnedIdentity { storage, id }
    }

    /// The borrowed view.
    pub fn as_identity(&self) -> Identity<'_> {
        Identity::new(&self.storage, &self.id)
    }
}

/// A borrowed identity finds an owned one in a hash table keyed by owned identities (both hash alike),
/// so that looking up an incoming file allocates nothing.
impl hashbrown::Equivalent<OwnedIdentity> for Identity<'_> {
    fn equivalent(&self, key: &OwnedIdentity) -> bool {
        *self == key.as_identity()
    }
}

impl PartialEq for OwnedIdentity {
    fn eq(&self, other: &Self) -> bool {
        self.as_identity() == other.as_identity()
    }
}

impl Eq for OwnedIdentity {}

impl Hash for OwnedIdentity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_identity().hash(state);
    }
}

/// `` `${storage}\0${id}` ``: the SDK joins the pair with a NUL, and so do we, so that every comparison
/// (including "does this identity end with `\0<id>`") behaves the same.
pub fn identity_key(storage: &str, id: &str) -> String {
    let mut k = String::with_capacity(storage.len() + id.len() + 1);
    k.push_str(storage);
    k.push('\0');
    k.push_str(id);
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbrown::HashSet;

    #[test]
    fn identities_compare_as_their_joined_text() {
        let a = Identity::new("s\0x", "y");
        let b = Identity::new("s", "x\0y");
        assert_eq!(a, b);
        assert_eq!(a.to_key(), b.to_key());
        let set: HashSet<Identity<'_>> = [a].into_iter().collect();
        assert!(set.contains(&b));
        assert_ne!(Identity::new("s", "x"), Identity::new("s", "y"));
        assert!(Identity::new("", "f").matches_key("\0f"));
    }
}
