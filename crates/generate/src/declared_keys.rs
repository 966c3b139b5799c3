//! Declarations held to the code that reads them where their keys are not one struct's fields alone:
//! an option object declares exactly the keys its reader knows (so that a key the module learns is
//! declared, and a declared key is one the module reads), an input record the keys its reader takes.
//! (The answers are held to what the package hands out by `tests/js/declared.test.mjs`, which reads
//! the declarations.)

use std::collections::BTreeSet;

use code_session_gate::core::json::fields_of;
use code_session_gate::core::sandbox::{ANSWER_FLAGS, DIRECT_KEYS, EVENT_KEYS};
use code_session_gate::core::wire::{
    ExecToolCallContext, ExecToolFactoryParams, NamedToolDefinition, ProgrammaticToolDefinition,
};

/// The declaration of `name` among those the generator writes.
fn decl(name: &str) -> Result<&'static str, String> {
    crate::declarations::all()
        .find(|d| {
            d.contains(&format!("export interface {name} "))
                || d.contains(&format!("export interface {name}<"))
        })
        .ok_or_else(|| format!("no interface {name} is declared"))
}

/// The keys interface `name` declares, its bases' included.
fn keys(name: &str) -> Result<BTreeSet<String>, String> {
    let d = decl(name)?;
    let mut out = BTreeSet::new();
    let head = d
        .lines()
        .find(|l| l.starts_with("export interface"))
        .unwrap_or_default();
    if let Some((_, bases)) = head.split_once(" extends ") {
        let bases = bases.split(" {").next().unwrap_or_default();
        for base in bases.split(", ") {
            if base != "OtherKeys" {
                out.extend(keys(base)?);
            }
        }
    }
    for line in d.lines() {
        // Members sit one level in (tsify indents by four); doc lines begin with `/**` or `*`.
        let Some(member) = line.strip_prefix("    ") else {
            continue;
        };
        if member.starts_with(' ') || member.starts_with("/**") || member.starts_with('*') {
            continue;
        }
        if let Some(key) = member.split(['?', ':']).next() {
            out.insert(key.trim_matches('"').to_owned());
        }
    }
    Ok(out)
}

fn set<'a>(keys: impl IntoIterator<Item = &'a &'a str>) -> BTreeSet<String> {
    keys.into_iter().map(|k| (*k).to_owned()).collect()
}

#[test]
fn the_key_reader_reads_members_and_bases() -> Result<(), String> {
    assert_eq!(keys("GateLimits")?.len(), 4);
    Ok(())
}

#[test]
fn the_sandbox_options_declare_what_the_request_builder_reads() -> Result<(), String> {
    // A forwarded request's options are a built one's, its planned keys declared `never`, and the
    // flags the layer reads (`wire.js` reads them by these names).
    let mut forwarded = keys("SandboxRequestOptions")?;
    forwarded.extend(set(&ANSWER_FLAGS));
    assert_eq!(keys("ForwardRequestOptions")?, forwarded);
    // The context's keys the builder reads are those the gate's answers declare.
    assert_eq!(keys("DirectInjection")?, set(&DIRECT_KEYS));
    assert_eq!(keys("RequestSessionFields")?, set(&EVENT_KEYS));
    Ok(())
}

#[test]
fn the_exec_wire_options_declare_what_their_readers_read() -> Result<(), String> {
    // The keys among those passed on that the SDK itself sets (the factory params the direct tools
    // spread into the body, a tool definition's, sent whole) are declared as the open records' other
    // members (`declarations::BASES`), never read.
    assert_eq!(
        keys("ExecToolFactoryParams")?,
        set(fields_of::<ExecToolFactoryParams>())
    );
    assert_eq!(
        keys("ExecToolCallContext")?,
        set(fields_of::<ExecToolCallContext>())
    );
    assert_eq!(
        keys("ProgrammaticToolDefinition")?,
        set(fields_of::<ProgrammaticToolDefinition>())
    );
    assert_eq!(
        keys("NamedToolDefinition")?,
        set(fields_of::<NamedToolDefinition>())
    );
    Ok(())
}
