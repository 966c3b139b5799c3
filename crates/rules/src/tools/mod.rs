//! The session-aware tool set and the verdict of every gate site for a tool name.
//!
//! Membership is an exact, case-sensitive string comparison; names are never trimmed. The built-in
//! code tools and the host-declared `codeSessionToolNames` are the *participants*; `skill` and
//! `read_file` get narrower allowances on the event and eager paths. [`eager`] decides which calls the
//! stream layer may prestart.

pub mod eager;
pub mod explain;

/// `Constants.EXECUTE_CODE`; also the default partition key.
pub const EXECUTE_CODE: &str = "execute_code";
/// `Constants.BASH_TOOL`.
pub const BASH_TOOL: &str = "bash_tool";
/// `Constants.PROGRAMMATIC_TOOL_CALLING`.
pub const PROGRAMMATIC_TOOL_CALLING: &str = "run_tools_with_code";
/// `Constants.BASH_PROGRAMMATIC_TOOL_CALLING`.
pub const BASH_PROGRAMMATIC_TOOL_CALLING: &str = "run_tools_with_bash";
/// `Constants.SKILL_TOOL`: reads the session on the event/eager paths and folds on the event path.
pub const SKILL_TOOL: &str = "skill";
/// `Constants.READ_FILE`: reads the session on the event/eager paths, never folds.
pub const READ_FILE: &str = "read_file";

/// `CODE_EXECUTION_TOOLS`: the built-in code tools.
pub const CODE_EXECUTION_TOOLS: [&str; 4] = [
    EXECUTE_CODE,
    BASH_TOOL,
    PROGRAMMATIC_TOOL_CALLING,
    BASH_PROGRAMMATIC_TOOL_CALLING,
];

/// Whether `name` is one of [`CODE_EXECUTION_TOOLS`].
pub fn is_code_execution_tool(name: &str) -> bool {
    CODE_EXECUTION_TOOLS.contains(&name)
}

/// Bits of a [`Verdict`]; stable, hosts may decode them.
pub mod bits {
    /// `participatesInCodeSession(name)`.
    pub const PARTICIPATES: u32 = 1;
    /// G1: the in-process path injects `session_id` / `_injected_files` / `_runtime_session_hint`.
    pub const DIRECT_INJECT: u32 = 1 << 1;
    /// G2: the in-process completion folds the artifact.
    pub const DIRECT_FOLD: u32 = 1 << 2;
    /// G3: an event-dispatched request gets `codeSessionContext`.
    pub const EVENT_CONTEXT: u32 = 1 << 3;
    /// G5: an event result folds the artifact.
    pub const EVENT_FOLD: u32 = 1 << 4;
    /// G4: an event request gets `runtimeSessionHint`.
    pub const EVENT_RUNTIME_HINT: u32 = 1 << 5;
    /// G7: an eager prestart request gets `codeSessionContext`.
    pub const EAGER_CONTEXT: u32 = 1 << 6;

    /// Every site's bit under the name hosts see it by, in order.
    pub const SITES: [(&str, u32); 7] = [
        ("participates", PARTICIPATES),
        ("directInject", DIRECT_INJECT),
        ("directFold", DIRECT_FOLD),
        ("eventContext", EVENT_CONTEXT),
        ("eventFold", EVENT_FOLD),
        ("eventRuntimeHint", EVENT_RUNTIME_HINT),
        ("eagerContext", EAGER_CONTEXT),
    ];
}

/// The verdict of every gate site for one name, packed in bits (see [`bits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict(pub u32);

impl Verdict {
    /// Whether every bit of `mask` is set.
    pub fn has(self, mask: u32) -> bool {
        self.0 & mask == mask
    }
}

/// The host-declared `codeSessionToolNames`, kept raw: the ToolNode ignores an empty list and never
/// admits the empty name, while the stream layer tests the raw array with `includes`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSet {
    declared: Vec<String>,
}

impl ToolSet {
    /// The set with these host-declared names (duplicates and `""` are kept as given).
    pub fn new(declared: Vec<String>) -> Self {
        ToolSet { declared }
    }

    /// The declared names as given.
    pub fn declared(&self) -> &[String] {
        &self.declared
    }

    /// `codeSessionToolNames.includes(name)` on the raw list (the stream layer's test).
    pub fn declares(&self, name: &str) -> bool {
        self.declared.iter().any(|d| d == name)
    }

    /// `participatesInCodeSession(name)`: not `""`, and a built-in code tool or a declared name.
    pub fn participates(&self, name: &str) -> bool {
        self.membership(name).participates()
    }

    /// Every name whose verdict is not zero, with its verdict: the built-in code tools, `skill`,
    /// `read_file` and the declared names (each once). Any other name's verdict is zero, so a host may
    /// look names up in this table instead of asking per call.
    pub fn verdict_table(&self) -> Vec<(String, Verdict)> {
        let mut out: Vec<(String, Verdict)> = Vec::new();
        let names = CODE_EXECUTION_TOOLS
            .iter()
            .copied()
            .chain([SKILL_TOOL, READ_FILE])
            .chain(self.declared.iter().map(String::as_str));
        for name in names {
            if !out.iter().any(|(n, _)| n == name) {
                out.push((name.to_owned(), self.classify(name)));
            }
        }
        out
    }

    /// The verdict of every gate site for `name`: the sites whose decision ([`Self::explain`]) passes.
    pub fn classify(&self, name: &str) -> Verdict {
        let decisions = self.explain(name);
        let passed = decisions.iter().filter(|d| d.passes);
        Verdict(passed.fold(0, |acc, d| acc | d.bit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> ToolSet {
        ToolSet::new(names.iter().map(|s| (*s).to_owned()).collect())
    }

    /// The gate table of the SDK (reference-sdk.md 4.1), written out independently of [`ToolSet::explain`].
    fn table_verdict(t: &ToolSet, name: &str) -> Verdict {
        let builtin = CODE_EXECUTION_TOOLS.contains(&name);
        let declared = t.declared().iter().any(|d| d == name);
        let participant = !name.is_empty() && (builtin || declared);
        let mut v = 0;
        if participant {
            v |= bits::PARTICIPATES
                | bits::DIRECT_INJECT
                | bits::DIRECT_FOLD
                | bits::EVENT_CONTEXT
                | bits::EVENT_FOLD
                | bits::EVENT_RUNTIME_HINT;
        }
        if participant || name == SKILL_TOOL || name == READ_FILE {
            v |= bits::EVENT_CONTEXT;
        }
        if participant || name == SKILL_TOOL {
            v |= bits::EVENT_FOLD;
        }
        if builtin || declared || name == SKILL_TOOL || name == READ_FILE {
            v |= bits::EAGER_CONTEXT;
        }
        Verdict(v)
    }

    #[test]
    fn classify_is_the_sdk_gate_table() {
        for declared in [
            &[][..],
            &["create_file", "", "skill"][..],
            &["read_file", "bash_tool"][..],
        ] {
            let t = set(declared);
            for name in [
                "execute_code",
                "bash_tool",
                "run_tools_with_code",
                "run_tools_with_bash",
                "skill",
                "read_file",
                "create_file",
                "",
                " ",
                "Skill",
                "bash_tool ",
                "web_search",
            ] {
                assert_eq!(
                    t.classify(name),
                    table_verdict(&t, name),
                    "{declared:?} {name:?}"
                );
            }
        }
    }

    #[test]
    fn skill_and_read_file_allowances() {
        let t = set(&[]);
        let skill = t.classify("skill");
        assert!(skill.has(bits::EVENT_CONTEXT | bits::EVENT_FOLD | bits::EAGER_CONTEXT));
        assert!(!skill.has(bits::DIRECT_INJECT) && !skill.has(bits::EVENT_RUNTIME_HINT));
        let rf = t.classify("read_file");
        assert!(rf.has(bits::EVENT_CONTEXT) && !rf.has(bits::EVENT_FOLD));
    }

    #[test]
    fn empty_name_never_participates_but_stream_includes_it() {
        let t = set(&[""]);
        assert!(!t.participates(""));
        assert_eq!(t.classify(""), Verdict(bits::EAGER_CONTEXT));
        assert_eq!(set(&[]).classify(""), Verdict(0));
    }

    #[test]
    fn the_verdict_table_covers_every_name_with_a_verdict() {
        let t = set(&["create_file", "", "bash_tool", "create_file"]);
        let table = t.verdict_table();
        assert_eq!(table.len(), 8);
        for name in [
            "execute_code",
            "skill",
            "read_file",
            "create_file",
            "",
            "web_search",
            "Bash_tool",
            " ",
        ] {
            let listed = table.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
            assert_eq!(listed.unwrap_or(Verdict(0)), t.classify(name), "{name:?}");
        }
    }

    #[test]
    fn names_are_exact() {
        assert_eq!(set(&["create_file"]).classify("Create_File"), Verdict(0));
        assert!(set(&[]).participates("bash_tool"));
        assert!(!set(&[]).participates("bash_tool "));
    }
}
