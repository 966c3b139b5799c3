//! The eager prestart exclusion (`isEagerExecutionExcludedTool`, gate site G6): which tool calls the
//! stream layer must never start speculatively.

use super::{is_code_execution_tool, ToolSet, EXECUTE_CODE};

/// Everything the eager prestart exclusion consults besides the name.
#[derive(Debug, Clone, Copy)]
pub struct EagerExclusion<'a> {
    /// `eagerEventToolExecution.excludeToolNames`.
    pub exclude_tool_names: &'a [String],
    /// The run-scoped suppressions (names whose prestart diverged from the final call).
    pub suppressed_tool_names: &'a [String],
    /// `codeSessionToolNames`.
    pub tools: &'a ToolSet,
    /// `toolExecution.sandbox.statefulSessions === true`.
    pub stateful_sessions: bool,
    /// The agent's `codeSessionKey` as given (absent differs from `""`).
    pub agent_code_session_key: Option<&'a str>,
}

crate::names::named! {
    /// The rule of the eager prestart exclusion that decided, in the order they are tried.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum EagerRule;
    /// The rule's stable identifier (hosts may match on it).
    fn id {
        /// 1. `""` is never excluded (the planner refuses the whole candidate set instead).
        EmptyName = "empty_name",
        /// 2. Listed in `eagerEventToolExecution.excludeToolNames`.
        ExcludeList = "exclude_list",
        /// 3. Suppressed for this run (a prestart of the name diverged from the final call).
        Suppressed = "suppressed",
        /// 4. Declared in `codeSessionToolNames`: host tools are never prestarted.
        Declared = "declared",
        /// 5. Not a built-in code tool: eligible.
        NotCodeTool = "not_code_tool",
        /// 6. Stateful sessions: the durable workspace must never see speculative writes.
        StatefulSessions = "stateful_sessions",
        /// 7. The agent's partition is custom (set and not `execute_code`; `""` counts as custom).
        CustomPartition = "custom_partition",
        /// 7. The agent uses the default partition: eligible.
        DefaultPartition = "default_partition",
    }
}

impl EagerRule {
    /// One sentence saying what the rule is.
    pub fn text(self) -> &'static str {
        match self {
            EagerRule::EmptyName => {
                "the empty name is never excluded; the planner refuses the whole candidate set instead"
            }
            EagerRule::ExcludeList => "the name is in eagerEventToolExecution.excludeToolNames",
            EagerRule::Suppressed => {
                "a prestart of the name diverged from the final call earlier in this run"
            }
            EagerRule::Declared => "names in codeSessionToolNames are never prestarted",
            EagerRule::NotCodeTool => "only the built-in code tools are subject to the session rules",
            EagerRule::StatefulSessions => {
                "stateful sessions: the durable workspace must never see speculative writes"
            }
            EagerRule::CustomPartition => {
                "the agent's codeSessionKey is set and is not execute_code (\"\" counts as custom)"
            }
            EagerRule::DefaultPartition => "the agent uses the default execute_code partition",
        }
    }
}

impl EagerExclusion<'_> {
    /// `isEagerExecutionExcludedTool`: whether the stream layer never prestarts `name`.
    pub fn excludes(&self, name: &str) -> bool {
        self.decide(name).0
    }

    /// The exclusion and the first rule that decides it:
    /// 1. `""` is never excluded (the planner then refuses the whole candidate set instead);
    /// 2. listed in `excludeToolNames`; 3. suppressed for this run; 4. host-declared → excluded;
    /// 5. not a built-in code tool → eligible; 6. stateful sessions → excluded;
    /// 7. excluded iff the agent's key is set and is not `execute_code` (`""` counts as custom).
    pub fn decide(&self, name: &str) -> (bool, EagerRule) {
        if name.is_empty() {
            return (false, EagerRule::EmptyName);
        }
        if self.exclude_tool_names.iter().any(|n| n == name) {
            return (true, EagerRule::ExcludeList);
        }
        if self.suppressed_tool_names.iter().any(|n| n == name) {
            return (true, EagerRule::Suppressed);
        }
        if self.tools.declares(name) {
            return (true, EagerRule::Declared);
        }
        if !is_code_execution_tool(name) {
            return (false, EagerRule::NotCodeTool);
        }
        if self.stateful_sessions {
            return (true, EagerRule::StatefulSessions);
        }
        match self.agent_code_session_key {
            Some(k) if k != EXECUTE_CODE => (true, EagerRule::CustomPartition),
            _ => (false, EagerRule::DefaultPartition),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> ToolSet {
        ToolSet::new(names.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn eager_exclusion_order() {
        let tools = set(&["create_file"]);
        let base = EagerExclusion {
            exclude_tool_names: &[],
            suppressed_tool_names: &[],
            tools: &tools,
            stateful_sessions: false,
            agent_code_session_key: None,
        };
        assert!(base.excludes("create_file"));
        assert!(!base.excludes("execute_code"));
        assert!(!base.excludes("skill"));
        let stateful = EagerExclusion {
            stateful_sessions: true,
            ..base
        };
        assert!(stateful.excludes("bash_tool") && !stateful.excludes("read_file"));
        let custom = EagerExclusion {
            agent_code_session_key: Some(""),
            ..base
        };
        assert!(custom.excludes("execute_code"));
        let explicit_default = EagerExclusion {
            agent_code_session_key: Some("execute_code"),
            ..base
        };
        assert!(!explicit_default.excludes("execute_code"));
        let list = [String::new()];
        let empty_listed = EagerExclusion {
            exclude_tool_names: &list,
            ..base
        };
        assert!(!empty_listed.excludes(""));
    }

    #[test]
    fn the_first_deciding_rule_is_named() {
        let tools = set(&["bash_tool"]);
        let listed = [String::from("bash_tool")];
        let e = EagerExclusion {
            exclude_tool_names: &listed,
            suppressed_tool_names: &listed,
            tools: &tools,
            stateful_sessions: true,
            agent_code_session_key: Some("custom"),
        };
        assert_eq!(e.decide("bash_tool"), (true, EagerRule::ExcludeList));
        assert_eq!(
            e.decide("execute_code"),
            (true, EagerRule::StatefulSessions)
        );
        assert_eq!(e.decide("skill"), (false, EagerRule::NotCodeTool));
        let e = EagerExclusion {
            exclude_tool_names: &[],
            stateful_sessions: false,
            ..e
        };
        assert_eq!(e.decide("bash_tool"), (true, EagerRule::Suppressed));
        assert_eq!(e.decide("execute_code"), (true, EagerRule::CustomPartition));
        let e = EagerExclusion {
            suppressed_tool_names: &[],
            agent_code_session_key: None,
            ..e
        };
        assert_eq!(e.decide("bash_tool"), (true, EagerRule::Declared));
        assert_eq!(
            e.decide("execute_code"),
            (false, EagerRule::DefaultPartition)
        );
    }
}
