//! The parameters of one operation: each is the JSON text of one argument (`None` for `undefined`),
//! decoded on demand into its own type, with its parameter name as the root of every refusal's path.

use serde::Deserialize;

use code_session_gate_rules::error::{GateError, GateResult, Path};
use code_session_gate_rules::json::{self, Str};

/// An operation's arguments, by position, with their names.
pub struct Params<'a> {
    texts: &'a [Option<&'a str>],
    names: &'static [&'static str],
}

impl<'a> Params<'a> {
    /// The arguments `texts` of an operation whose parameters are `names`.
    pub fn new(texts: &'a [Option<&'a str>], names: &'static [&'static str]) -> Self {
        Params { texts, names }
    }

    fn name(&self, i: usize) -> &'static str {
        self.names.get(i).copied().unwrap_or("")
    }

    /// The text of argument `i` (`None`: `undefined`).
    pub fn text(&self, i: usize) -> Option<&'a str> {
        self.texts.get(i).copied().flatten()
    }

    /// Argument `i` decoded (`None`: `undefined`; `null` decodes as `T` says).
    pub fn get<T: Deserialize<'a>>(&self, i: usize) -> GateResult<Option<T>> {
        self.text(i)
            .map(|t| json::decode(t, self.name(i)))
            .transpose()
    }

    /// Argument `i`, which must be given (`undefined` is `missing_field`).
    pub fn required<T: Deserialize<'a>>(&self, i: usize) -> GateResult<T> {
        self.get(i)?
            .ok_or_else(|| GateError::missing(&Path::root(self.name(i))))
    }

    /// Argument `i`, which must be given and not `null` (`undefined` is `missing_field`).
    pub fn present<T: Deserialize<'a>>(&self, i: usize) -> GateResult<T> {
        match self.required::<Option<T>>(i)? {
            Some(v) => Ok(v),
            None => Err(GateError::expected(
                &Path::root(self.name(i)),
                "a value",
                "null",
            )),
        }
    }

    /// Argument `i`, a string (anything else, `undefined` included, is `invalid_type`).
    pub fn string(&self, i: usize) -> GateResult<Str<'a>> {
        match self.text(i) {
            None => Err(GateError::expected(
                &Path::root(self.name(i)),
                "a string",
                "undefined",
            )),
            Some(t) => json::decode(t, self.name(i)),
        }
    }

    /// Argument `i` as an unsigned 32-bit id (a batch or prestart id).
    pub fn id(&self, i: usize) -> GateResult<u32> {
        self.required(i)
    }
}
