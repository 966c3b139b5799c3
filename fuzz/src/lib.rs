//! Shared input grammars and oracles of the fuzz targets.
//!
//! The library's operations take JSON texts, and most random bytes are refused at the first brace. So the
//! targets mostly build their arguments from a grammar driven by the fuzzer's bytes ([`Gen`]): JSON
//! objects with the keys the gate reads (`session_id`, `files` of refs, `artifact`, `results`, `options`
//! with `now` / `codeSessionKey` / `threadId`, …), values drawn from small pools so that ids, names and
//! sessions collide as they do in a conversation, and now and then a wrong type, `null`, an unknown key,
//! an odd number spelling, an escape or a lone surrogate where the gate must refuse or carry it.
//!
//! [`ListModel`] is the JavaScript layer's view of the file lists the gate writes by reference
//! (`src/lists/`, `Shared` in `packages/code-session-gate/wire.js`), on the library's own reader of that protocol: the
//! targets decode every list of every answer with it, and a list that cannot be decoded, or a generation
//! that stands for two different lists, is a finding.

use std::fmt::Write as _;

use arbitrary::Unstructured;

/// Makes a stack overflow a finding libFuzzer keeps. Without a sanitizer nothing gives the main thread
/// an alternate signal stack, so libFuzzer's SIGSEGV handler would itself fault on the exhausted stack
/// and the process would die without writing the crashing input. Called from each target's `init`
/// (before libFuzzer installs its handlers): an alternate stack, and a SIGSEGV handler on it that
/// libFuzzer chains to (it keeps `SA_ONSTACK` and calls an existing handler first), which says what
/// happened and raises SIGABRT, whose libFuzzer handler then runs on the same alternate stack, reports
/// a deadly signal and saves the input.
pub fn install_overflow_handler() {
    extern "C" fn on_segv(_: libc::c_int, _: *mut libc::siginfo_t, _: *mut libc::c_void) {
        const MESSAGE: &[u8] = b"\n==csg-fuzz== SIGSEGV: stack overflow (or a wild access); raising SIGABRT for libFuzzer\n";
        // SAFETY: write(2) and raise(3) are async-signal-safe; MESSAGE is a static buffer.
        unsafe {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            libc::raise(libc::SIGABRT);
        }
    }
    const ALT_STACK: usize = 16 << 20;
    let stack: &'static mut [u8] = Vec::leak(vec![0u8; ALT_STACK]);
    // SAFETY: the alternate stack is leaked (lives as long as the process); the handler is a plain
    // `extern "C"` function; both calls only read the structs given.
    unsafe {
        let ss = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: ALT_STACK,
        };
        libc::sigaltstack(&ss, std::ptr::null_mut());
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_segv as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGSEGV, &action, std::ptr::null_mut());
    }
}
use code_session_gate::wire::client::ListReader;
use serde_json::Value;

/// A JSON text under construction: a tree whose leaves may be raw text (odd number spellings, escapes,
/// lone surrogates) and whose objects may repeat keys.
#[derive(Debug, Clone)]
pub enum J {
    /// Written as is (must be a JSON value for the text to be valid JSON).
    Raw(String),
    /// A string, escaped as JSON.
    Str(String),
    /// An array.
    Arr(Vec<J>),
    /// An object, keys in order (repeats allowed).
    Obj(Vec<(String, J)>),
}

impl J {
    /// `null`.
    pub fn null() -> J {
        J::Raw("null".into())
    }

    /// A string.
    pub fn s(v: &str) -> J {
        J::Str(v.to_owned())
    }

    /// A raw number or literal.
    pub fn raw(v: impl Into<String>) -> J {
        J::Raw(v.into())
    }

    /// The JSON text.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            J::Raw(r) => out.push_str(r),
            J::Str(s) => write_str(s, out),
            J::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            J::Obj(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    /// An object's entry by key (the last one), if this is an object.
    pub fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// `s` as a JSON string literal.
pub fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `s` as a JSON string literal (a new string).
pub fn quote(s: &str) -> String {
    let mut out = String::new();
    write_str(s, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------------
// Pools: small, so that ids, names, sessions and partitions collide.

/// Tool names: the built-in code tools, the programmatic ones, `skill`, host-declared session tools and
/// names that are none of these.
pub const TOOLS: &[&str] = &[
    "bash_tool",
    "execute_code",
    "create_file",
    "edit_file",
    "read_file",
    "skill",
    "run_tools_with_code",
    "run_tools_with_bash",
    "web_search",
    "",
];
/// Partition keys.
pub const KEYS: &[&str] = &["execute_code", "agent-a", "agent-b", ""];
/// Exec session ids.
pub const EXECS: &[&str] = &["e0", "e1", "e2", "exec-1", ""];
/// File ids.
pub const FILE_IDS: &[&str] = &["f1", "f2", "f3", "s1", "a1", ""];
/// File names.
pub const FILE_NAMES: &[&str] = &["a.py", "b.csv", "SKILL.md", "/mnt/data/out.txt", "a.py", ""];
/// File kinds (known, unknown, wrong case).
pub const KINDS: &[&str] = &["user", "agent", "skill", "skill", "other", "Skill", ""];
/// Resource ids.
pub const RESOURCES: &[&str] = &["r1", "agent-1", "skill-1", "f1", ""];
/// Thread ids (some a codeapi runtime hint refuses).
pub const THREADS: &[&str] = &["conv-1", "t:2.a_b", "bad thread!", "", "x"];
/// Number spellings (JSON numbers kept as written, JavaScript doubles, edge values).
pub const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "1.0",
    "2.50",
    "1e3",
    "-1",
    "-0",
    "0.5",
    "1700000000000",
    "9007199254740993",
    "1e400",
    "-1e400",
    "123456789012345678901234567890",
    "4294967296",
    "1E-7",
];
/// Raw string literals that exercise escapes: lone and paired surrogates, NUL, escaped quotes.
pub const ODD_STRINGS: &[&str] = &[
    r#""\ud800""#,
    r#""\udfff""#,
    r#""a\ud83d\ude00b""#,
    r#""\u0000""#,
    r#""\"\\\/\b\f\n\r\t""#,
    r#""\u00e9t\u00e9""#,
    r#""é😀""#,
    r#""\uD834\uDD1E""#,
    r#""\ud800x""#,
];

/// The fuzzer's bytes as grammar choices.
pub struct Gen<'a> {
    /// The bytes.
    pub u: Unstructured<'a>,
    /// Tool call ids handed out so far (reused by later results and outcomes).
    pub call_ids: Vec<String>,
}

impl<'a> Gen<'a> {
    /// A generator over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Gen {
            u: Unstructured::new(data),
            call_ids: Vec::new(),
        }
    }

    /// Whether the bytes are used up.
    pub fn done(&self) -> bool {
        self.u.is_empty()
    }

    /// `true` with probability `num / den` (false once the bytes run out: `Unstructured::ratio` says
    /// true then).
    pub fn chance(&mut self, num: u8, den: u8) -> bool {
        !self.u.is_empty() && self.u.ratio(num, den).unwrap_or(false)
    }

    /// A count in `0..=max` (0 once the bytes run out).
    pub fn upto(&mut self, max: usize) -> usize {
        self.u.int_in_range(0..=max).unwrap_or(0)
    }

    /// A branch in `0..=max`, where the last (`_ =>`) is the ordinary one: `max` once the bytes run out,
    /// so that an input that ends early ends with ordinary values, not with the odd ones.
    pub fn branch(&mut self, max: usize) -> usize {
        if self.u.is_empty() {
            return max;
        }
        self.upto(max)
    }

    /// A byte.
    pub fn byte(&mut self) -> u8 {
        self.u.arbitrary().unwrap_or(0)
    }

    /// One of `items` (the first once the bytes run out).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        let i = self.upto(items.len().saturating_sub(1));
        items[i]
    }

    /// A short arbitrary string (any Unicode scalar values).
    pub fn any_string(&mut self) -> String {
        let n = self.upto(12);
        let mut s = String::new();
        for _ in 0..n {
            let c: char = self.u.arbitrary().unwrap_or('x');
            s.push(c);
        }
        s
    }

    /// A string: mostly from `pool`, else arbitrary, else an escape-laden raw literal.
    pub fn str_from(&mut self, pool: &[&str]) -> J {
        match self.branch(19) {
            0 => J::Str(self.any_string()),
            1 => J::Raw(self.pick(ODD_STRINGS).to_owned()),
            _ => J::s(self.pick(pool)),
        }
    }

    /// A plain Rust string from `pool` (or arbitrary, rarely).
    pub fn word(&mut self, pool: &[&str]) -> String {
        if self.chance(1, 16) {
            self.any_string()
        } else {
            self.pick(pool).to_owned()
        }
    }

    /// A JSON number spelling.
    pub fn number(&mut self) -> J {
        if self.chance(1, 8) {
            let n: i64 = self.u.arbitrary().unwrap_or(0);
            return J::raw(n.to_string());
        }
        J::raw(self.pick(NUMBERS))
    }

    /// Any JSON value, nesting at most `depth`.
    pub fn junk(&mut self, depth: usize) -> J {
        let max = if depth == 0 { 4 } else { 6 };
        match self.upto(max) {
            0 => J::null(),
            1 => J::raw(if self.chance(1, 2) { "true" } else { "false" }),
            2 => self.number(),
            3 => self.str_from(TOOLS),
            4 => J::Str(self.any_string()),
            5 => {
                let n = self.upto(3);
                J::Arr((0..n).map(|_| self.junk(depth - 1)).collect())
            }
            _ => {
                let n = self.upto(3);
                J::Obj(
                    (0..n)
                        .map(|_| {
                            let k = self.word(&["id", "name", "session_id", "files", "x", "kind"]);
                            (k, self.junk(depth - 1))
                        })
                        .collect(),
                )
            }
        }
    }

    /// `good` most of the time; sometimes `null` or a value of another type.
    pub fn or_junk(&mut self, good: J) -> J {
        match self.branch(23) {
            0 => J::null(),
            1 => self.junk(1),
            _ => good,
        }
    }

    /// Builds an object from optional entries, now and then with an unknown key or a repeated one.
    pub fn obj(&mut self, entries: Vec<(&str, Option<J>)>) -> J {
        let mut out: Vec<(String, J)> = entries
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
            .collect();
        if self.chance(1, 24) {
            let k = self.word(&["extra", "path", "inherited", "__proto__", "x"]);
            let v = self.junk(2);
            let at = self.upto(out.len());
            out.insert(at, (k, v));
        }
        if !out.is_empty() && self.chance(1, 40) {
            let i = self.upto(out.len() - 1);
            let (k, _) = out[i].clone();
            let v = self.junk(1);
            out.push((k, v));
        }
        J::Obj(out)
    }

    /// `Some(f())` with probability `num / den`.
    pub fn maybe(&mut self, num: u8, den: u8, f: impl FnOnce(&mut Self) -> J) -> Option<J> {
        if self.chance(num, den) {
            Some(f(self))
        } else {
            None
        }
    }

    /// A list of `f()`, at most `max` long.
    pub fn list(&mut self, max: usize, mut f: impl FnMut(&mut Self) -> J) -> J {
        let n = self.upto(max);
        J::Arr((0..n).map(|_| f(self)).collect())
    }

    // ---- the gate's records -------------------------------------------------------------------------

    /// A `FileRef`: `{id, name, storage_session_id?, kind?, version?, resource_id?, …extra}`.
    pub fn file_ref(&mut self) -> J {
        let id = self.str_from(FILE_IDS);
        let id = self.or_junk(id);
        let name = self.str_from(FILE_NAMES);
        let name = self.or_junk(name);
        let entries = vec![
            ("id", (!self.chance(1, 30)).then_some(id)),
            ("name", (!self.chance(1, 30)).then_some(name)),
            (
                "storage_session_id",
                self.maybe(1, 2, |g| {
                    let s = g.str_from(EXECS);
                    g.or_junk(s)
                }),
            ),
            (
                "kind",
                self.maybe(2, 3, |g| {
                    let k = g.str_from(KINDS);
                    g.or_junk(k)
                }),
            ),
            (
                "version",
                self.maybe(1, 2, |g| {
                    let n = g.number();
                    g.or_junk(n)
                }),
            ),
            (
                "resource_id",
                self.maybe(1, 3, |g| {
                    let r = g.str_from(RESOURCES);
                    g.or_junk(r)
                }),
            ),
            ("path", self.maybe(1, 10, |g| g.junk(1))),
        ];
        let mut f = self.obj(entries);
        // Shuffle the key order now and then (the gate keeps the order of extras, not of known keys).
        if let J::Obj(e) = &mut f {
            if e.len() > 1 && self.chance(1, 4) {
                let i = self.upto(e.len() - 1);
                let j = self.upto(e.len() - 1);
                e.swap(i, j);
            }
        }
        f
    }

    /// A list of refs (or, rarely, something else).
    pub fn files(&mut self) -> J {
        let l = self.list(5, |g| g.file_ref());
        self.or_junk(l)
    }

    /// An artifact: `{session_id?, files?, deleted_files?}`.
    pub fn artifact(&mut self) -> J {
        if self.chance(1, 20) {
            return self.junk(2);
        }
        let entries = vec![
            (
                "session_id",
                self.maybe(7, 8, |g| {
                    let s = g.str_from(EXECS);
                    g.or_junk(s)
                }),
            ),
            ("files", self.maybe(3, 4, |g| g.files())),
            ("deleted_files", self.maybe(1, 6, |g| g.files())),
        ];
        self.obj(entries)
    }

    /// A partition entry: `{session_id?, files?, lastUpdated?, …extra}`.
    pub fn session_entry(&mut self) -> J {
        let entries = vec![
            (
                "session_id",
                self.maybe(5, 6, |g| {
                    let s = g.str_from(EXECS);
                    g.or_junk(s)
                }),
            ),
            ("files", self.maybe(4, 5, |g| g.files())),
            (
                "lastUpdated",
                self.maybe(1, 2, |g| {
                    let n = g.number();
                    g.or_junk(n)
                }),
            ),
            ("extraKey", self.maybe(1, 8, |g| g.junk(2))),
        ];
        self.obj(entries)
    }

    /// `[[key, entry], …]`.
    pub fn session_pairs(&mut self) -> J {
        let l = self.list(3, |g| {
            let k = g.str_from(KEYS);
            let k = g.or_junk(k);
            let e = g.session_entry();
            if g.chance(1, 30) {
                J::Arr(vec![k])
            } else {
                J::Arr(vec![k, e])
            }
        });
        self.or_junk(l)
    }

    /// A gate configuration (with `sessions` when `sessions` allows it).
    pub fn config(&mut self, sessions: bool) -> J {
        let entries = vec![
            (
                "profile",
                self.maybe(2, 3, |g| {
                    let p = J::s(g.pick(&["3.6", "3.9", "3.9", "3.7"]));
                    g.or_junk(p)
                }),
            ),
            (
                "codeSessionToolNames",
                self.maybe(3, 4, |g| {
                    let l = g.list(4, |g| g.str_from(TOOLS));
                    g.or_junk(l)
                }),
            ),
            (
                "codeSessionKey",
                self.maybe(1, 3, |g| {
                    let k = g.str_from(KEYS);
                    g.or_junk(k)
                }),
            ),
            (
                "toolExecution",
                self.maybe(2, 3, |g| {
                    let sandbox = g.maybe(5, 6, |g| {
                        let entries = vec![
                            (
                                "statefulSessions",
                                g.maybe(3, 4, |g| {
                                    if g.chance(1, 8) {
                                        g.junk(1)
                                    } else {
                                        J::raw(if g.chance(3, 4) { "true" } else { "false" })
                                    }
                                }),
                            ),
                            (
                                "runtimeSessionHint",
                                g.maybe(1, 3, |g| {
                                    let t = g.str_from(THREADS);
                                    g.or_junk(t)
                                }),
                            ),
                        ];
                        g.obj(entries)
                    });
                    let entries = vec![
                        ("sandbox", sandbox),
                        ("engine", g.maybe(1, 8, |g| g.junk(1))),
                    ];
                    g.obj(entries)
                }),
            ),
            (
                "eagerEventToolExecution",
                self.maybe(1, 2, |g| {
                    let names = g.maybe(4, 5, |g| {
                        let l = g.list(3, |g| g.str_from(TOOLS));
                        g.or_junk(l)
                    });
                    g.obj(vec![("excludeToolNames", names)])
                }),
            ),
            (
                "sessions",
                if sessions {
                    self.maybe(2, 3, |g| {
                        if g.chance(1, 6) {
                            J::null()
                        } else {
                            g.session_pairs()
                        }
                    })
                } else {
                    None
                },
            ),
        ];
        self.obj(entries)
    }

    /// A call id: usually one handed out before, else a fresh one.
    pub fn call_id(&mut self) -> J {
        if !self.call_ids.is_empty() && self.chance(3, 4) {
            let i = self.upto(self.call_ids.len() - 1);
            return J::Str(self.call_ids[i].clone());
        }
        let n = self.upto(5);
        let id = format!("c{n}");
        self.call_ids.push(id.clone());
        if self.chance(1, 20) {
            return self.junk(1);
        }
        J::Str(id)
    }

    /// Model arguments: an object (with trusted fields smuggled in now and then), a JSON string of one,
    /// or something else.
    pub fn model_args(&mut self) -> J {
        let object = |g: &mut Gen<'_>| {
            let entries = vec![
                (
                    "command",
                    g.maybe(1, 2, |g| g.str_from(&["ls /mnt/data", "echo hi", ""])),
                ),
                (
                    "lang",
                    g.maybe(1, 3, |g| g.str_from(&["py", "bash", "js", "cobol", ""])),
                ),
                ("code", g.maybe(1, 3, |g| g.str_from(&["print(1)", ""]))),
                ("file_path", g.maybe(1, 3, |g| g.str_from(FILE_NAMES))),
                (
                    "args",
                    g.maybe(1, 6, |g| {
                        let l = g.list(2, |g| g.str_from(&["-v", "x"]));
                        g.or_junk(l)
                    }),
                ),
                ("session_id", g.maybe(1, 8, |g| g.str_from(EXECS))),
                ("_injected_files", g.maybe(1, 10, |g| g.files())),
                ("files", g.maybe(1, 10, |g| g.files())),
                (
                    "runtime_session_hint",
                    g.maybe(1, 10, |g| g.str_from(THREADS)),
                ),
                ("user_id", g.maybe(1, 12, |g| g.str_from(&["u1"]))),
                (
                    "count",
                    g.maybe(1, 6, |g| {
                        if g.chance(1, 2) {
                            g.number()
                        } else {
                            J::s(g.pick(&["3", "x", "1e2", " 4 "]))
                        }
                    }),
                ),
            ];
            g.obj(entries)
        };
        match self.branch(9) {
            0 => {
                // A JSON string holding the arguments (what a model often sends).
                let inner = object(self).text();
                let inner = if self.chance(1, 6) {
                    // Truncated (at a character boundary).
                    let mut cut = inner.len() / 2;
                    while !inner.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    inner[..cut].to_owned()
                } else {
                    inner
                };
                J::Str(inner)
            }
            1 => self.junk(2),
            _ => object(self),
        }
    }

    /// `{ id?, name, args? }` of an event / eager batch.
    pub fn event_call(&mut self) -> J {
        let entries = vec![
            (
                "id",
                if self.chance(15, 16) {
                    Some(self.call_id())
                } else {
                    None
                },
            ),
            ("name", {
                let n = self.str_from(TOOLS);
                (!self.chance(1, 40)).then_some(n)
            }),
            ("args", self.maybe(7, 8, |g| g.model_args())),
            ("type", self.maybe(1, 10, |_| J::s("tool_call"))),
        ];
        self.obj(entries)
    }

    /// `{ id?, name }` of a direct batch.
    pub fn direct_call(&mut self) -> J {
        let entries = vec![
            ("id", self.maybe(7, 8, |g| g.call_id())),
            ("name", {
                let n = self.str_from(TOOLS);
                (!self.chance(1, 40)).then_some(n)
            }),
        ];
        self.obj(entries)
    }

    /// `"success"` or `"error"` (or, rarely, something else).
    pub fn status(&mut self) -> J {
        let s = J::s(self.pick(&["success", "success", "error"]));
        if self.chance(1, 30) {
            self.junk(1)
        } else {
            s
        }
    }

    /// A `now`.
    pub fn now(&mut self) -> J {
        let n = self.number();
        if self.chance(1, 30) {
            self.junk(1)
        } else {
            n
        }
    }

    /// A tool schemas object `{ name: { type: "object", properties: { count: { type: "number" } } } }`.
    pub fn tool_schemas(&mut self) -> J {
        let l = self.upto(2);
        let mut entries = Vec::new();
        for _ in 0..l {
            let name = self.word(TOOLS);
            let ty =
                J::s(self.pick(&["number", "integer", "string", "boolean", "array", "object"]));
            let prop = self.obj(vec![("type", Some(ty))]);
            let props = J::Obj(vec![("count".into(), prop)]);
            let schema = self.obj(vec![
                ("type", Some(J::s("object"))),
                ("properties", Some(props)),
            ]);
            entries.push((name, schema));
        }
        let o = J::Obj(entries);
        self.or_junk(o)
    }

    /// A request context `{session_id?, files?}` (a baseline, or a host's replacement context).
    pub fn request_context(&mut self) -> J {
        let entries = vec![
            (
                "session_id",
                self.maybe(3, 4, |g| {
                    let s = g.str_from(EXECS);
                    g.or_junk(s)
                }),
            ),
            ("files", self.maybe(2, 3, |g| g.files())),
        ];
        self.obj(entries)
    }

    /// Seeding agents `[{ codeSessionKey?, initialSessions? }]`.
    pub fn agents(&mut self) -> J {
        let l = self.list(3, |g| {
            let entries = vec![
                (
                    "codeSessionKey",
                    g.maybe(3, 4, |g| {
                        let k = g.str_from(KEYS);
                        g.or_junk(k)
                    }),
                ),
                ("initialSessions", g.maybe(1, 3, |g| g.session_pairs())),
            ];
            g.obj(entries)
        });
        self.or_junk(l)
    }

    // ---- the sandbox layer ----------------------------------------------------------------------------

    /// The options of `buildSandboxRequest`.
    pub fn sandbox_request(&mut self) -> J {
        let context = |g: &mut Gen<'_>| {
            if g.chance(1, 2) {
                // A direct injection.
                let entries = vec![
                    (
                        "session_id",
                        g.maybe(3, 4, |g| {
                            let s = g.str_from(EXECS);
                            g.or_junk(s)
                        }),
                    ),
                    ("_injected_files", g.maybe(3, 4, |g| g.files())),
                    (
                        "_runtime_session_hint",
                        g.maybe(1, 2, |g| {
                            let t = g.str_from(THREADS);
                            g.or_junk(t)
                        }),
                    ),
                    (
                        "runtimeSessionHint",
                        g.maybe(1, 20, |g| g.str_from(THREADS)),
                    ),
                ];
                g.obj(entries)
            } else {
                // An event request.
                let entries = vec![
                    ("id", g.maybe(1, 2, |g| g.call_id())),
                    ("name", g.maybe(1, 2, |g| g.str_from(TOOLS))),
                    (
                        "codeSessionContext",
                        g.maybe(5, 6, |g| {
                            let c = g.request_context();
                            g.or_junk(c)
                        }),
                    ),
                    (
                        "runtimeSessionHint",
                        g.maybe(1, 2, |g| {
                            let t = g.str_from(THREADS);
                            g.or_junk(t)
                        }),
                    ),
                    (
                        "codeSessionBaselineId",
                        g.maybe(1, 4, |g| g.str_from(EXECS)),
                    ),
                    ("session_id", g.maybe(1, 20, |g| g.str_from(EXECS))),
                ];
                g.obj(entries)
            }
        };
        let entries = vec![
            (
                "dialect",
                (!self.chance(1, 30)).then(|| {
                    let d = J::s(self.pick(&["codeapi", "librecodeinterpreter", "other"]));
                    self.or_junk(d)
                }),
            ),
            ("tool", (!self.chance(1, 30)).then(|| self.str_from(TOOLS))),
            (
                "run",
                self.maybe(1, 2, |g| {
                    let entries = vec![
                        (
                            "lang",
                            g.maybe(7, 8, |g| g.str_from(&["py", "bash", "js", "cobol", ""])),
                        ),
                        (
                            "code",
                            g.maybe(7, 8, |g| g.str_from(&["print(1)", "ls", ""])),
                        ),
                        (
                            "args",
                            g.maybe(1, 4, |g| {
                                let l = g.list(2, |g| g.str_from(&["-v", "x"]));
                                g.or_junk(l)
                            }),
                        ),
                    ];
                    let r = g.obj(entries);
                    g.or_junk(r)
                }),
            ),
            ("modelArgs", self.maybe(2, 3, |g| g.model_args())),
            (
                "context",
                self.maybe(4, 5, |g| {
                    let c = context(g);
                    g.or_junk(c)
                }),
            ),
            (
                "userId",
                self.maybe(1, 3, |g| g.str_from(&["u1", "user 2"])),
            ),
            ("entityId", self.maybe(1, 4, |g| g.str_from(&["ent-1"]))),
            (
                "timeoutMs",
                self.maybe(1, 3, |g| {
                    let n = g.number();
                    g.or_junk(n)
                }),
            ),
            (
                "credential",
                self.maybe(1, 3, |g| {
                    g.str_from(&["tok", "a\r\nX-Injected: 1", "k\u{7f}", "\u{e9}"])
                }),
            ),
            (
                "executionProfile",
                self.maybe(1, 4, |g| g.str_from(&["default", "gpu"])),
            ),
            (
                "requestId",
                self.maybe(1, 4, |g| g.str_from(&["req-1", "bad\nid"])),
            ),
        ];
        self.obj(entries)
    }

    /// A sandbox's answer body: an `/exec` result or an error body (or raw text).
    pub fn sandbox_body(&mut self) -> String {
        let file = |g: &mut Gen<'_>| {
            let entries = vec![
                (
                    "id",
                    g.maybe(9, 10, |g| {
                        let s = g.str_from(FILE_IDS);
                        g.or_junk(s)
                    }),
                ),
                (
                    "name",
                    g.maybe(9, 10, |g| {
                        let s = g.str_from(FILE_NAMES);
                        g.or_junk(s)
                    }),
                ),
                (
                    "session_id",
                    g.maybe(1, 3, |g| {
                        let s = g.str_from(EXECS);
                        g.or_junk(s)
                    }),
                ),
                (
                    "storage_session_id",
                    g.maybe(1, 3, |g| {
                        let s = g.str_from(EXECS);
                        g.or_junk(s)
                    }),
                ),
                (
                    "kind",
                    g.maybe(1, 3, |g| {
                        let s = g.str_from(KINDS);
                        g.or_junk(s)
                    }),
                ),
                (
                    "version",
                    g.maybe(1, 4, |g| {
                        let n = g.number();
                        g.or_junk(n)
                    }),
                ),
                (
                    "resource_id",
                    g.maybe(1, 4, |g| {
                        if g.chance(1, 2) {
                            J::null()
                        } else {
                            g.str_from(RESOURCES)
                        }
                    }),
                ),
            ];
            g.obj(entries)
        };
        let body = match self.branch(9) {
            0 => {
                let entries = vec![
                    ("error", self.maybe(7, 8, |g| g.junk(1))),
                    (
                        "error_type",
                        self.maybe(2, 3, |g| {
                            g.str_from(&["validation", "authentication", "rate_limit", "server"])
                        }),
                    ),
                    ("message", self.maybe(1, 2, |g| g.str_from(&["bad", ""]))),
                    (
                        "details",
                        self.maybe(1, 3, |g| g.str_from(&["bad", "more"])),
                    ),
                    ("retry_after_seconds", self.maybe(1, 2, |g| g.number())),
                    ("session_id", self.maybe(1, 4, |g| g.str_from(EXECS))),
                ];
                self.obj(entries).text()
            }
            1 => self.junk(3).text(),
            _ => {
                let entries = vec![
                    (
                        "session_id",
                        self.maybe(9, 10, |g| {
                            let s = g.str_from(EXECS);
                            g.or_junk(s)
                        }),
                    ),
                    (
                        "files",
                        self.maybe(3, 4, |g| {
                            let l = g.list(4, file);
                            g.or_junk(l)
                        }),
                    ),
                    (
                        "stdout",
                        self.maybe(2, 3, |g| {
                            let s = g.str_from(&["hi\n", ""]);
                            g.or_junk(s)
                        }),
                    ),
                    (
                        "stderr",
                        self.maybe(1, 2, |g| {
                            let s = g.str_from(&["", "warn"]);
                            g.or_junk(s)
                        }),
                    ),
                    (
                        "code",
                        self.maybe(1, 2, |g| {
                            let n = g.number();
                            g.or_junk(n)
                        }),
                    ),
                    ("error", self.maybe(1, 10, |g| g.junk(1))),
                ];
                self.obj(entries).text()
            }
        };
        // Keep-alive whitespace before the body, truncation, trailing garbage.
        let mut out = String::new();
        if self.chance(1, 4) {
            let n = self.upto(6);
            for _ in 0..n {
                out.push(self.pick(&[' ', '\n', '\t', '\r']));
            }
        }
        out.push_str(&body);
        if self.chance(1, 12) {
            let mut cut = self.upto(out.len());
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
        }
        if self.chance(1, 20) {
            out.push_str(self.pick(&[" ", "x", "}", "\u{0}"]));
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------------
// Oracles

/// Parses an answer that must be JSON (an empty answer is `undefined`, allowed where `empty_ok`).
pub fn answer_json(op: &str, text: &str, empty_ok: bool) -> Option<Value> {
    if text.is_empty() {
        assert!(empty_ok, "{op}: empty answer");
        return None;
    }
    // The gate refuses lone surrogates in what it reads, so its answers never hold one (serde_json
    // refuses them where JSON.parse would not).
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Some(v),
        Err(e) => panic!("{op}: answer is not JSON ({e}): {text:?}"),
    }
}

/// `text` as JSON, reading escaped unpaired surrogates as other characters (JSON.parse accepts them;
/// serde_json does not).
pub fn parse_lenient(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str::<Value>(text) {
        Err(e) if is_surrogate_error(&e) => {
            serde_json::from_str(&text.replace("\\ud", "\\u0").replace("\\uD", "\\u0"))
        }
        other => other,
    }
}

/// Whether serde_json refused a text for an escaped unpaired surrogate (its words for it).
pub fn is_surrogate_error(e: &serde_json::Error) -> bool {
    let m = e.to_string();
    m.contains("surrogate") || m.contains("unexpected end of hex escape")
}

/// The JavaScript layer's lists (`Shared` in `packages/code-session-gate/wire.js`), read by the library's own reader of
/// the list protocol ([`ListReader`]): a list that cannot be read (not held, a pick outside its base, a
/// malformed packed ref, a generation that stands for two different lists) is a finding.
#[derive(Debug, Default)]
pub struct ListModel {
    reader: ListReader,
    /// The last generation decoded (0: none).
    pub last: u64,
    /// The answer being decoded was asked with a made-up `list` (one the caller does not hold): the
    /// gate may then rightly refer to lists the model lacks; those references are skipped.
    pub lenient: bool,
}

impl ListModel {
    /// Forgets the lists held (the JavaScript layer's `clear()` on `setSessions`).
    pub fn clear(&mut self) {
        self.reader.clear();
        self.last = 0;
    }

    /// Forgets even the generations seen (a new gate: `Gate.fromSnapshot`).
    pub fn reset(&mut self) {
        self.reader = ListReader::default();
        self.last = 0;
    }

    /// Decodes a list reference `{gen, base?, add?, pick?}` of an answer into its narrowed refs, as the
    /// JavaScript layer does, and panics (a finding) where the answer breaks the protocol.
    pub fn decode(&mut self, what: &str, r: &Value) -> Vec<Value> {
        if self.lenient && (r.get("add").is_none() || r.get("pick").is_some()) {
            let gen = |k: &str| r.get(k).and_then(Value::as_u64);
            let held = r.get("add").is_none() && gen("gen").is_some_and(|g| self.reader.holds(g));
            let base = gen("base").is_some_and(|g| self.reader.holds(g));
            if !held && !base {
                return Vec::new();
            }
        }
        let list = self
            .reader
            .list(r)
            .unwrap_or_else(|broken| panic!("{what}: {broken}"));
        self.last = self.reader.last;
        list
    }
}

/// A narrowed ref as `toInjectedFileRef` writes it: `{id, resource_id, name, storage_session_id?, kind,
/// version?}` in that order, kind in `CODE_ENV_KINDS`, a version exactly on skills.
pub fn check_code_env_file(what: &str, v: &Value) {
    let o = v
        .as_object()
        .unwrap_or_else(|| panic!("{what}: narrowed ref is not an object: {v}"));
    let keys: Vec<&str> = o.keys().map(String::as_str).collect();
    let expected: Vec<&str> = [
        "id",
        "resource_id",
        "name",
        "storage_session_id",
        "kind",
        "version",
    ]
    .into_iter()
    .filter(|k| o.contains_key(*k))
    .collect();
    assert_eq!(keys, expected, "{what}: keys out of order or unknown: {v}");
    for k in ["id", "resource_id", "name", "kind"] {
        assert!(
            o.get(k).is_some_and(Value::is_string),
            "{what}: {k} missing or not a string: {v}"
        );
    }
    if let Some(s) = o.get("storage_session_id") {
        assert!(
            s.is_string(),
            "{what}: storage_session_id not a string: {v}"
        );
    }
    let kind = o.get("kind").and_then(Value::as_str).unwrap_or("");
    assert!(
        matches!(kind, "skill" | "agent" | "user"),
        "{what}: kind {kind:?}: {v}"
    );
    assert_eq!(
        o.contains_key("version"),
        kind == "skill",
        "{what}: version present on a non-skill, or a skill without one: {v}"
    );
    if let Some(ver) = o.get("version") {
        assert!(ver.is_number(), "{what}: version is not a number: {v}");
    }
}
