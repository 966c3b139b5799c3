//! A JSON-shaped value with insertion-ordered objects.
//!
//! Hosts hand the gate plain JavaScript data (artifacts, args, extra keys on file refs). The core keeps
//! such data as [`Value`] so that it can carry unknown keys through a merge exactly as the SDK's object
//! spreads do. `undefined` has no representation: a key whose value is `undefined` counts as absent,
//! as in the conformance vectors.

/// A JSON value. Numbers are IEEE doubles, as in JavaScript.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// JSON `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// Any double, including values JSON cannot spell (the boundary may hand them in).
    Number(f64),
    /// A well-formed Unicode string.
    String(String),
    /// An ordered list.
    Array(Vec<Value>),
    /// An object with its keys in insertion order.
    Object(Object),
}

impl Value {
    /// The string inside, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The object inside, if this is an object.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The items inside, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// JavaScript's `value == null` for a present value: only `null` is nullish here, since absent keys
    /// never become a `Value`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The JavaScript `typeof`-style name used in error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

/// An object: unique keys kept in insertion order, like a JavaScript object built by literals and spreads
/// (integer-like keys aside, which only change enumeration order, never meaning).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object {
    entries: Vec<(String, Value)>,
}

impl Object {
    /// An empty object.
    pub fn new() -> Self {
        Object::default()
    }

    /// The value stored under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _)| k == key)
    }

    /// Sets `key`: an existing key keeps its position (as an assignment does), a new key is appended.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// Removes `key` and returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let at = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(at).1)
    }

    /// `{...self, ...other}`: keys of `other` overwrite in place or are appended.
    pub fn spread(&mut self, other: &Object) {
        for (k, v) in &other.entries {
            self.insert(k.clone(), v.clone());
        }
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the object has no keys.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl FromIterator<(String, Value)> for Object {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        let mut o = Object::new();
        for (k, v) in iter {
            o.insert(k, v);
        }
        o
    }
}

impl IntoIterator for Object {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_keeps_position_of_existing_key() {
        let mut o = Object::new();
        o.insert("a", Value::Number(1.0));
        o.insert("b", Value::Number(2.0));
        o.insert("a", Value::Number(3.0));
        let keys: Vec<&str> = o.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(o.get("a"), Some(&Value::Number(3.0)));
    }

    #[test]
    fn spread_overwrites_and_appends() {
        let mut a: Object = [
            ("x".to_owned(), Value::Null),
            ("y".to_owned(), Value::Bool(true)),
        ]
        .into_iter()
        .collect();
        let b: Object = [
            ("y".to_owned(), Value::Bool(false)),
            ("z".to_owned(), "s".into()),
        ]
        .into_iter()
        .collect();
        a.spread(&b);
        let got: Vec<(&str, &Value)> = a.iter().collect();
        assert_eq!(
            got,
            [
                ("x", &Value::Null),
                ("y", &Value::Bool(false)),
                ("z", &Value::String("s".into()))
            ]
        );
    }
}
