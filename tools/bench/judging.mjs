// The pieces every judged figure of a run is made of (report.mjs, core-targets.mjs): a target's figures in one
// scenario, a ratio of two of them, and a target's row.

/** A target's figures in one scenario, or null when it was not measured (or failed) in this run. */
export function scenarioOf(outcomes, target, scenarioId) {
  const outcome = outcomes[target];
  if (!outcome || outcome.error) return null;
  return outcome.scenarios[scenarioId] ?? null;
}

/** a ÷ b, or null when either is missing or b is 0. */
export const ratio = (a, b) => (a === null || b === null || a === undefined || b === undefined || !b ? null : a / b);

/** A target judged: `met` is null when its figure was not measured in this run. */
export const targetRow = (name, value, unit, limit, met) => ({
  name,
  value: value ?? null,
  unit,
  limit,
  met: value === null || value === undefined ? null : met,
});
