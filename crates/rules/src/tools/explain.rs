//! Why a name passes or fails each gate site: the rule that decided, so that a devtools page or a log
//! can show the decision without re-deriving it. [`super::ToolSet::classify`] is built from the same
//! decisions, so an explanation can never disagree with a verdict.

use super::{bits, is_code_execution_tool, ToolSet, READ_FILE, SKILL_TOOL};

crate::names::named! {
    /// The rule that decided one gate site for one name.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum SiteRule;
    /// The rule's stable identifier (hosts may match on it).
    fn id {
        /// `""` never participates (`participatesInCodeSession` guards it).
        EmptyName = "empty_name",
        /// The name is one of `CODE_EXECUTION_TOOLS`.
        BuiltIn = "built_in",
        /// The name is in the host's `codeSessionToolNames`.
        Declared = "declared",
        /// `skill` reads the session on the event and eager paths and folds on the event path only.
        SkillAllowance = "skill_allowance",
        /// `read_file` reads the session on the event and eager paths and never folds.
        ReadFileAllowance = "read_file_allowance",
        /// The stream layer tests the raw `codeSessionToolNames` with `includes`, so a declared `""` passes.
        StreamIncludes = "stream_includes",
        /// `skill` is not a participant: the direct path and the runtime hint never see it.
        SkillNotParticipant = "skill_not_participant",
        /// `read_file` is not a participant: only the event and eager contexts see it.
        ReadFileNotParticipant = "read_file_not_participant",
        /// No list names it: every gate leaves the call untouched.
        NotListed = "not_listed",
    }
}

impl SiteRule {
    /// One sentence saying what the rule is.
    pub fn text(self) -> &'static str {
        match self {
            SiteRule::EmptyName => "the empty name never participates in the code session",
            SiteRule::BuiltIn => "the name is one of CODE_EXECUTION_TOOLS",
            SiteRule::Declared => "the name is in codeSessionToolNames",
            SiteRule::SkillAllowance => {
                "skill reads the session on the event and eager paths and folds on the event path"
            }
            SiteRule::ReadFileAllowance => {
                "read_file reads the session on the event and eager paths and never folds"
            }
            SiteRule::StreamIncludes => {
                "the stream layer tests the raw codeSessionToolNames, which lists the empty name"
            }
            SiteRule::SkillNotParticipant => {
                "skill is not a participant: no direct injection or fold, no runtime hint"
            }
            SiteRule::ReadFileNotParticipant => {
                "read_file is not a participant: only the event and eager contexts include it"
            }
            SiteRule::NotListed => {
                "neither CODE_EXECUTION_TOOLS nor codeSessionToolNames lists the name"
            }
        }
    }
}

/// The SDK's name for each gate site (`G1`…`G7`; `participatesInCodeSession` has none).
pub fn site_label(bit: u32) -> &'static str {
    match bit {
        bits::DIRECT_INJECT => "G1",
        bits::DIRECT_FOLD => "G2",
        bits::EVENT_CONTEXT => "G3",
        bits::EVENT_RUNTIME_HINT => "G4",
        bits::EVENT_FOLD => "G5",
        bits::EAGER_CONTEXT => "G7",
        _ => "participatesInCodeSession",
    }
}

/// One gate site's decision for one name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteDecision {
    /// The site's bit (see [`bits`]).
    pub bit: u32,
    /// Whether the name passes the site.
    pub passes: bool,
    /// The rule that decided.
    pub rule: SiteRule,
}

/// What the lists say about one name; every site's decision follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Membership {
    /// One of `CODE_EXECUTION_TOOLS`.
    pub built_in: bool,
    /// In the raw `codeSessionToolNames`.
    pub declared: bool,
    /// `skill`.
    pub skill: bool,
    /// `read_file`.
    pub read_file: bool,
    /// The empty name.
    pub empty: bool,
}

impl Membership {
    /// `participatesInCodeSession(name)`.
    pub fn participates(self) -> bool {
        !self.empty && (self.built_in || self.declared)
    }

    /// The rule that admits a participant (a built-in name wins over its declaration).
    fn participant_rule(self) -> SiteRule {
        if self.built_in {
            SiteRule::BuiltIn
        } else {
            SiteRule::Declared
        }
    }

    /// Why a non-participant fails a participants-only site.
    fn outsider_rule(self) -> SiteRule {
        if self.empty {
            SiteRule::EmptyName
        } else if self.skill {
            SiteRule::SkillNotParticipant
        } else if self.read_file {
            SiteRule::ReadFileNotParticipant
        } else {
            SiteRule::NotListed
        }
    }

    /// The decision at one site.
    pub fn decide(self, bit: u32) -> SiteDecision {
        let (passes, rule) = if self.participates() {
            (true, self.participant_rule())
        } else {
            match bit {
                bits::EVENT_CONTEXT | bits::EAGER_CONTEXT if self.skill => {
                    (true, SiteRule::SkillAllowance)
                }
                bits::EVENT_FOLD if self.skill => (true, SiteRule::SkillAllowance),
                bits::EVENT_CONTEXT | bits::EAGER_CONTEXT if self.read_file => {
                    (true, SiteRule::ReadFileAllowance)
                }
                bits::EVENT_FOLD if self.read_file => (false, SiteRule::ReadFileAllowance),
                bits::EAGER_CONTEXT if self.declared => (true, SiteRule::StreamIncludes),
                _ => (false, self.outsider_rule()),
            }
        };
        SiteDecision { bit, passes, rule }
    }

    /// The decision at every site, in the order of [`bits::SITES`].
    pub fn decisions(self) -> [SiteDecision; 7] {
        bits::SITES.map(|(_, bit)| self.decide(bit))
    }
}

impl ToolSet {
    /// What the lists say about `name`.
    pub fn membership(&self, name: &str) -> Membership {
        Membership {
            built_in: is_code_execution_tool(name),
            declared: self.declares(name),
            skill: name == SKILL_TOOL,
            read_file: name == READ_FILE,
            empty: name.is_empty(),
        }
    }

    /// Every gate site's decision for `name`, with the rule that made it.
    pub fn explain(&self, name: &str) -> [SiteDecision; 7] {
        self.membership(name).decisions()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> ToolSet {
        ToolSet::new(names.iter().map(|s| (*s).to_owned()).collect())
    }

    fn rule_at(t: &ToolSet, name: &str, bit: u32) -> (bool, SiteRule) {
        let d = t.membership(name).decide(bit);
        (d.passes, d.rule)
    }

    #[test]
    fn built_in_wins_over_a_declaration() {
        let t = set(&["bash_tool", "create_file"]);
        assert_eq!(
            rule_at(&t, "bash_tool", bits::DIRECT_INJECT),
            (true, SiteRule::BuiltIn)
        );
        assert_eq!(
            rule_at(&t, "create_file", bits::EVENT_FOLD),
            (true, SiteRule::Declared)
        );
    }

    #[test]
    fn skill_and_read_file_say_which_allowance_decided() {
        let t = set(&[]);
        assert_eq!(
            rule_at(&t, "skill", bits::EVENT_FOLD),
            (true, SiteRule::SkillAllowance)
        );
        assert_eq!(
            rule_at(&t, "skill", bits::DIRECT_INJECT),
            (false, SiteRule::SkillNotParticipant)
        );
        assert_eq!(
            rule_at(&t, "read_file", bits::EVENT_FOLD),
            (false, SiteRule::ReadFileAllowance)
        );
        assert_eq!(
            rule_at(&t, "read_file", bits::EVENT_RUNTIME_HINT),
            (false, SiteRule::ReadFileNotParticipant)
        );
    }

    #[test]
    fn a_declared_empty_name_passes_only_the_stream_include() {
        let t = set(&[""]);
        assert_eq!(
            rule_at(&t, "", bits::EAGER_CONTEXT),
            (true, SiteRule::StreamIncludes)
        );
        assert_eq!(
            rule_at(&t, "", bits::PARTICIPATES),
            (false, SiteRule::EmptyName)
        );
        assert_eq!(
            rule_at(&set(&[]), "", bits::EAGER_CONTEXT),
            (false, SiteRule::EmptyName)
        );
    }

    #[test]
    fn unknown_names_are_not_listed_everywhere() {
        for d in set(&["create_file"]).explain("Create_File") {
            assert_eq!((d.passes, d.rule), (false, SiteRule::NotListed));
        }
    }

    #[test]
    fn a_refusing_rule_never_admits() {
        let t = set(&["create_file", "", "skill"]);
        for name in [
            "execute_code",
            "skill",
            "read_file",
            "create_file",
            "",
            "x",
            "bash_tool ",
        ] {
            for d in t.explain(name) {
                let refusing = matches!(
                    d.rule,
                    SiteRule::EmptyName
                        | SiteRule::NotListed
                        | SiteRule::SkillNotParticipant
                        | SiteRule::ReadFileNotParticipant
                );
                assert!(!(refusing && d.passes), "{name:?} {d:?}");
            }
        }
    }

    #[test]
    fn labels_name_the_sdk_sites() {
        let labels: Vec<_> = bits::SITES.iter().map(|(_, b)| site_label(*b)).collect();
        assert_eq!(
            labels,
            [
                "participatesInCodeSession",
                "G1",
                "G2",
                "G3",
                "G5",
                "G4",
                "G7"
            ]
        );
    }
}
