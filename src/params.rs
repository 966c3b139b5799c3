//! The parameters of one operation: each is the JSON text of one argument (`None` for `undefined`),
//! decoded into the type its registry entry names ([`Arg`]), with its parameter name as the root of
//! every refusal's path. The registry writes each operation's reading of its arguments from its
//! entry, so that the function that runs it takes them typed, in the order of its parameters.

use std::marker::PhantomData;

use serde::Deserialize;

use code_session_gate_rules::error::{GateError, GateResult, Path};
use code_session_gate_rules::json::{self, FromMembers, Obj, Opts, Str};

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

    /// Argument `at` read as `W` says, `at` moved on to the next one (what the registry's generated
    /// readers call, parameter after parameter).
    pub fn next<W: Arg<'a>>(&self, at: &mut usize) -> GateResult<W::Out> {
        let i = *at;
        *at += 1;
        W::read(
            self.texts.get(i).copied().flatten(),
            self.names.get(i).copied().unwrap_or(""),
        )
    }
}

/// How a parameter's argument is read: `text` is its JSON text (`None`: `undefined`), `name` the
/// parameter's name, which roots the paths of refusals. The registry names one per parameter.
pub trait Arg<'a> {
    /// What the operation's function receives.
    type Out;
    /// Reads the argument.
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<Self::Out>;
}

/// Decodes a given argument.
fn decode<'a, T: Deserialize<'a>>(text: &'a str, name: &str) -> GateResult<T> {
    json::decode(text, name)
}

/// A string (anything else, `undefined` included, is `invalid_type`).
impl<'a> Arg<'a> for Str<'a> {
    type Out = Str<'a>;
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<Str<'a>> {
        match text {
            None => Err(GateError::expected(
                &Path::root(name),
                "a string",
                "undefined",
            )),
            Some(t) => decode(t, name),
        }
    }
}

/// An unsigned 32-bit id (a batch or prestart id), which must be given.
pub struct Id;

impl<'a> Arg<'a> for Id {
    type Out = u32;
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<u32> {
        Required::<u32>::read(text, name)
    }
}

/// The argument's text as it came (`None`: `undefined`), for a function that reads it itself.
pub struct Text;

impl<'a> Arg<'a> for Text {
    type Out = Option<&'a str>;
    fn read(text: Option<&'a str>, _: &'static str) -> GateResult<Option<&'a str>> {
        Ok(text)
    }
}

/// A `T` that must be given (`undefined` is `missing_field`; `null` decodes as `T` says).
pub struct Required<T>(PhantomData<T>);

impl<'a, T: Deserialize<'a>> Arg<'a> for Required<T> {
    type Out = T;
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<T> {
        match text {
            None => Err(GateError::missing(&Path::root(name))),
            Some(t) => decode(t, name),
        }
    }
}

/// A `T` that must be given and not `null` (`undefined` is `missing_field`).
pub struct Present<T>(PhantomData<T>);

impl<'a, T: Deserialize<'a>> Arg<'a> for Present<T> {
    type Out = T;
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<T> {
        match Required::<Option<T>>::read(text, name)? {
            Some(v) => Ok(v),
            None => Err(GateError::expected(&Path::root(name), "a value", "null")),
        }
    }
}

/// A `T` or nothing (`undefined` and `null` alike).
pub struct Maybe<T>(PhantomData<T>);

impl<'a, T: Deserialize<'a>> Arg<'a> for Maybe<T> {
    type Out = Option<T>;
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<Option<T>> {
        Ok(text
            .map(|t| decode::<Option<T>>(t, name))
            .transpose()?
            .flatten())
    }
}

/// `W`'s reading of a given argument, or `None` for `undefined`.
pub struct Opt<W>(PhantomData<W>);

impl<'a, W: Arg<'a>> Arg<'a> for Opt<W> {
    type Out = Option<W::Out>;
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<Option<W::Out>> {
        text.map(|_| W::read(text, name)).transpose()
    }
}

/// A list of records, each an object (`undefined` is `missing_field`, `null` and non-arrays
/// `invalid_type`).
pub struct Records<T>(PhantomData<T>);

impl<'a, T: Deserialize<'a>> Arg<'a> for Records<T> {
    type Out = Vec<T>;
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<Vec<T>> {
        Ok(Present::<Vec<Obj<T>>>::read(text, name)?
            .into_iter()
            .map(|o| o.0)
            .collect())
    }
}

/// An options object read as `T` under the key policy ([`Opts`]: an unknown key ignored, a misspelt
/// known key refused), its members kept as their texts ([`json::read_members`]); `undefined` and
/// `null` are no options (`T`'s default).
pub struct Options<T>(PhantomData<T>);

impl<'a, T: FromMembers<'a>> Arg<'a> for Options<T> {
    type Out = T;
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<T> {
        json::read_members(text, name)
    }
}

/// An options object read as `T` under the key policy by the one reader of options objects
/// ([`json::read_members`]), which must be given (`undefined` is `missing_field`, `null`
/// `invalid_type`).
pub struct Given<T>(PhantomData<T>);

impl<'a, T: FromMembers<'a>> Arg<'a> for Given<T> {
    type Out = T;
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<T> {
        match text {
            None => Err(GateError::missing(&Path::root(name))),
            Some("null") => Err(GateError::expected(&Path::root(name), "a value", "null")),
            Some(_) => json::read_members(text, name),
        }
    }
}

/// A member of an options object read by [`Given`], which must be given: decoded as `T` (`null`
/// as `T` reads it), refusals at its key.
pub fn member<'a, T: Deserialize<'a>>(
    raw: Option<json::Raw<'a>>,
    key: &'static str,
) -> GateResult<T> {
    match raw {
        None => Err(GateError::missing(&Path::root(key))),
        Some(r) => decode(r.get(), key),
    }
}

/// An options object read as `T` under the key policy, which must be given (`undefined` is
/// `missing_field`, `null` `invalid_type`).
pub struct Object<T>(PhantomData<T>);

impl<'a, T: Deserialize<'a>> Arg<'a> for Object<T> {
    type Out = T;
    fn read(text: Option<&'a str>, name: &'static str) -> GateResult<T> {
        Present::<Opts<T>>::read(text, name).map(|o| o.0)
    }
}
