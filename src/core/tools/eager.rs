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

impl EagerExclusion<'_> {
    /// `isEagerExecutionExcludedTool`: the first rule that decides wins.
    /// 1. `""` is never excluded (the planner then refuses the whole candidate set instead);
    /// 2. listed in `excludeToolNames`; 3. suppressed for this run; 4. host-declared → excluded;
    /// 5. not a built-in code tool → eligible; 6. stateful sessions → excluded;
    /// 7. excluded iff the agent's key is set and is not `execute_code` (`""` counts as custom).
    pub fn excludes(&self, name: &str) -> bool {
        if name.is_empty() {
            return false;
        }
        if self.exclude_tool_names.iter().any(|n| n == name)
            || self.suppressed_tool_names.iter().any(|n| n == name)
            || self.tools.declares(name)
        {
            return true;
        }
        if !is_code_execution_tool(name) {
            return false;
        }
        if self.stateful_sessions {
            return true;
        }
        self.agent_code_session_key
            .is_some_and(|k| k != EXECUTE_CODE)
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
}
