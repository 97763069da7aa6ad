import { boundEstimate, pricedModel } from '../billing/bounded-estimate';
import { type Estimate, estimateCall, isBillable, isPriced } from '../billing/budget-estimate';
import { type Call, OPENAI_FORMAT } from '../call/call';
import { catalogMethodOf } from '../catalog/actions';
import { servedBy } from '../catalog/deployments';
import type { CatalogModel, Deployment } from '../catalog/catalog.types';
import type { PolicyVerdict } from '../policy/verdict';
import type { ProviderAdapters } from '../providers/provider-adapters';
import type { Balanced, Candidate } from '../routing/balancer';
import { type ProviderPreferences } from '../routing/preferences';
import { reservationDeployment } from '../routing/preferences';
import { DEFAULT_RETRY_BUDGET } from '../routing/retry-policy';
import type { RoutingService } from '../routing/routing.service';
import type { Json } from '../wire/frame';

/** A call on one deployment: the model as that deployment serves it (priced), its policy verdict and estimate. */
export interface Route {
  deployment: Deployment;
  model: CatalogModel;
  policy: PolicyVerdict;
  estimate: Estimate;
}

/** A route kept with the call (Call.keepFor), for the model it was worked out for. */
interface KeptRoute {
  model: CatalogModel;
  route: Route;
}

/** One model's plan for a call: its candidates in order (each one the call can be sent to), or why there are none. */
export interface Planned {
  model: CatalogModel;
  balanced: Balanced;
  candidates: Candidate[];
}

/** The `provider` preferences are read on these routes (OpenRouter's shape; docs/routing.md, "Caller preferences"). */
const PREFERENCE_ACTIONS = new Set(['chat_completions', 'completions', 'responses']);

/** Whether a call on `action` through a face named `face` may carry `provider` preferences (Gemini's face: no). */
export function takesPreferences(face: string, action: string): boolean {
  return face !== 'gemini' && PREFERENCE_ACTIONS.has(action);
}

/**
 * Removes `provider` from a body that carries it (it is the gateway's, never the provider's), re-serialising the
 * bytes that would otherwise go upstream as they came.
 */
export function withoutPreferences(input: { json: Json | null; raw: Buffer | null }): void {
  if (!input.json || !('provider' in input.json)) return;
  delete input.json.provider;
  input.raw = Buffer.from(JSON.stringify(input.json));
}

/**
 * The calls' routes over a model's deployments (docs/routing.md, "Prices" and "Wiring"), for the pipeline: what a
 * call costs on each, which of them it may be sent to, and where it is reserved.
 */
export class CallRoutes {
  constructor(
    private readonly routing: RoutingService,
    private readonly adapters: ProviderAdapters,
  ) {}

  /**
   * The call on `deployment` of `model`, with the request as it stands (its output bound, once written); null when
   * the deployment cannot take it: its provider does not take the call's format, the policy refuses it, it cannot
   * bound it, or it has no price for the method. `strict`: the policy's and the estimate's refusals are thrown (the
   * call's own model: its errors are the caller's answer, as before routing).
   */
  routeOf(call: Call, model: CatalogModel, deployment: Deployment, strict = false): Route | null {
    // The plan, the reservation's choice and the fitting check each ask for the same routes: each is worked out
    // once for the request as it stands (the policy walks the body, the estimate measures the prompt), again only
    // once the gateway has changed the request (its output bound). A refusal is not kept: it is worked out again,
    // and thrown when strict.
    const kept = call.keptFor(deployment) as KeptRoute | undefined;
    if (kept?.model === model) return kept.route;
    const route = this.workOut(call, model, deployment, strict);
    if (route) call.keepFor(deployment, { model, route } satisfies KeptRoute);
    return route;
  }

  private workOut(call: Call, model: CatalogModel, deployment: Deployment, strict: boolean): Route | null {
    const served = servedBy(model, deployment);
    if (call.format !== OPENAI_FORMAT && !this.adapters.takes(served, call.format)) return null;
    try {
      const policy = call.policyFor(served);
      const priced = pricedModel(served, policy);
      const estimate = boundEstimate(
        estimateCall(call.route.action, priced, call.json, call.form, call.outputFields),
        priced,
        policy,
      );
      return { deployment, model: priced, policy, estimate };
    } catch (error) {
      if (strict) throw error;
      return null;
    }
  }

  /**
   * The model's candidates for the call, under the caller's preferences: the balancer's order, without the
   * deployments the call cannot be sent to (routeOf) nor those without a price for the method (while one has a
   * price: else the reservation refuses the call as an unpriced model). Null when the model does not serve the
   * call's method at all. `strict`: the call's own model, whose primary's refusals are the caller's answer.
   */
  plan(call: Call, model: CatalogModel, preferences: ProviderPreferences, strict = false): Planned | null {
    if (!model.methods.includes(catalogMethodOf(call.route.action))) return null;
    const routes = new Map<string, Route | null>();
    const routeOf = (d: Deployment) => {
      // Strict for the primary only: another deployment the policy refuses is left out, not the call refused.
      if (!routes.has(d.key)) routes.set(d.key, this.routeOf(call, model, d, strict && d === model.deployments[0]));
      return routes.get(d.key)!;
    };
    const cost = (d: Deployment) => routeOf(d)?.estimate.worstMicros ?? Number.MAX_SAFE_INTEGER;
    const balanced = this.routing.plan(model, preferences, cost);
    const action = call.route.action;
    const takes = balanced.candidates.filter((c) => routeOf(c.deployment));
    const priced = takes.filter(
      (c) => model.free || !isBillable(action) || isPriced(action, routeOf(c.deployment).model),
    );
    return { model, balanced, candidates: priced.length || !strict ? priced : takes };
  }

  /**
   * Where the call is reserved: the dearest of the candidates it may use (the first 1 + the retry budget), so the
   * hold covers whichever answers (docs/routing.md, "Prices").
   */
  reservedAt(call: Call, planned: Planned): Route {
    const usable = planned.candidates.slice(0, 1 + DEFAULT_RETRY_BUDGET);
    const worst = (d: Deployment) => this.routeOf(call, planned.model, d)?.estimate.worstMicros ?? 0;
    return this.routeOf(call, planned.model, reservationDeployment(usable, worst)!, true)!;
  }

  /**
   * The candidates the reserved call may still go to: the deployment's worst case (with the output bound written)
   * within what the call holds, as a fallback model's must be (`current`, where it was reserved, fits by construction).
   */
  fitting(call: Call, planned: Planned, current: Deployment | null): { candidate: Candidate; route: Route }[] {
    const held = call.reservation?.amountMicros ?? 0;
    const action = call.route.action;
    const fitting: { candidate: Candidate; route: Route }[] = [];
    for (const candidate of planned.candidates) {
      const route = this.routeOf(call, planned.model, candidate.deployment);
      if (!route) continue;
      const worst = route.estimate.worstMicros;
      if (candidate.deployment === current || (worst <= held && (worst > 0 || !isPriced(action, route.model))))
        fitting.push({ candidate, route });
    }
    return fitting;
  }
}
