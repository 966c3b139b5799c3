// Conformance adapter for `plan_request` vectors through the package's JS API: maps a vector's input
// (`ops.plan_request` of vectors.json) onto `pkg.planToolRequests` and returns the vector's expect
// shape: `{aborted: true}` or `{aborted: false, all_requests: [{id, args?, fields}], rejected_ids}`,
// with `args` reported only when the input names `tool_schemas`.
export function run(pkg, input, profile) {
  const options = { profile };
  if (input.invalid_args_behavior !== undefined) options.invalidArgsBehavior = input.invalid_args_behavior;
  const withSchemas = 'tool_schemas' in input;
  if (withSchemas) options.toolSchemas = input.tool_schemas;
  const plan = pkg.planToolRequests(input.calls, options);
  if (plan.aborted) return { aborted: true };
  return {
    aborted: false,
    all_requests: plan.allRequests.map((r) => {
      const fields = {};
      if (r.codeSessionContext !== undefined) fields.codeSessionContext = r.codeSessionContext;
      if (r.runtimeSessionHint !== undefined) fields.runtimeSessionHint = r.runtimeSessionHint;
      return withSchemas ? { id: r.id, args: r.args, fields } : { id: r.id, fields };
    }),
    rejected_ids: plan.rejectedIds,
  };
}
