//! Routes: which endpoint a tool's first request goes to, per profile and factory.

use super::factory::Factory;
use super::{ExecTool, EXEC_ENDPOINT, PROGRAMMATIC_ENDPOINT};
use crate::config::Profile;
use crate::error::{ErrorCode, GateError, GateResult, Path};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    Exec,
    Programmatic,
}

impl Route {
    pub(super) fn endpoint(self) -> &'static str {
        match self {
            Route::Exec => EXEC_ENDPOINT,
            Route::Programmatic => PROGRAMMATIC_ENDPOINT,
        }
    }
}

/// The routes `tool` can take; the first is the one that does not depend on the model's arguments.
pub(super) fn routes(profile: Profile, tool: ExecTool, factory: &Factory<'_>) -> &'static [Route] {
    match tool {
        ExecTool::ExecuteCode => &[Route::Exec],
        ExecTool::Bash if factory.workspace.is_some() => &[Route::Programmatic],
        ExecTool::Bash => &[Route::Exec],
        ExecTool::BashProgrammatic if factory.workspace.is_some() => &[Route::Programmatic],
        ExecTool::Programmatic | ExecTool::BashProgrammatic if profile.is_3_9() => {
            &[Route::Programmatic, Route::Exec]
        }
        ExecTool::Programmatic | ExecTool::BashProgrammatic => &[Route::Programmatic],
    }
}

pub(super) fn resolve_route(
    profile: Profile,
    tool: ExecTool,
    factory: &Factory<'_>,
    endpoint: Option<&str>,
    path: &Path<'_>,
) -> GateResult<Route> {
    let allowed = routes(profile, tool, factory);
    let Some(endpoint) = endpoint else {
        return Ok(allowed.first().copied().unwrap_or(Route::Exec));
    };
    allowed
        .iter()
        .copied()
        .find(|r| r.endpoint() == endpoint)
        .ok_or_else(|| {
            let known: Vec<&str> = allowed.iter().map(|r| r.endpoint()).collect();
            GateError::new(
                ErrorCode::InvalidValue,
                path,
                format!(
                    "{} never sends to {endpoint:?} with this profile and factory (its routes: {})",
                    tool.name(),
                    known.join(", ")
                ),
            )
        })
}
