import { type Catalog, type HealthStore, phaseOf, type SharedBreaker } from '../modules/proxy';

export type BreakersRequest = { action: 'list' } | { action: 'open' | 'close'; deployment: string };

/** `breakers [list] | open <deployment> | close <deployment>`, checked before anything is opened. */
export function breakersRequest(args: string[]): BreakersRequest | string {
  const [action = 'list', deployment, ...extra] = args;
  if (action === 'list') return deployment === undefined ? { action } : 'breakers list takes no argument';
  if (action !== 'open' && action !== 'close') return `unknown breakers action "${action}"`;
  if (!deployment || extra.length) return `breakers ${action} takes exactly one deployment (provider/upstreamModel)`;
  return { action, deployment };
}

/** Every deployment of the catalog (`provider/upstreamModel`) with the models it serves. */
function deploymentsOf(catalog: Catalog): Map<string, string[]> {
  const deployments = new Map<string, string[]>();
  for (const model of catalog.models.values())
    for (const { key } of model.deployments) deployments.set(key, [...(deployments.get(key) ?? []), model.id]);
  return deployments;
}

function describe(key: string, breaker: SharedBreaker, models: string[], now: number): string {
  const phase = phaseOf(breaker, now);
  const detail =
    phase === 'open'
      ? `open until ${new Date(breaker.until).toISOString()} (${breaker.reason}, opened ${breaker.level}× in a row)`
      : phase === 'half_open'
        ? `half-open: the next call probes it (${breaker.reason})`
        : phase === 'forced_open'
          ? 'forced open: no calls until `breakers close`'
          : 'closed';
  return `${key}  ${detail}  (${models.join(', ')})`;
}

/**
 * `npm run admin -- breakers`: lists every deployment's circuit breaker as every instance sees it (the shared store,
 * Redis), or forces one open (no calls go to it until it is forced closed) or closed (it takes calls again at once,
 * its cooldown forgotten); docs/routing.md, "Health". Returns 2 for a deployment the catalog does not have.
 */
export async function breakersCommand(
  request: BreakersRequest,
  catalog: Catalog,
  store: HealthStore,
  print: (line: string) => void,
  now: () => number = Date.now,
): Promise<number> {
  const deployments = deploymentsOf(catalog);
  if (request.action === 'list') {
    for (const [key, models] of deployments) print(describe(key, await store.read(key), models, now()));
    return 0;
  }
  const models = deployments.get(request.deployment);
  if (!models) {
    print(
      `no deployment ${request.deployment} in ${catalog.source}; the deployments are ${[...deployments.keys()].join(', ')}`,
    );
    return 2;
  }
  const breaker = await store.force(request.deployment, request.action === 'open' ? 'open' : 'closed');
  print(describe(request.deployment, breaker, models, now()));
  return 0;
}
