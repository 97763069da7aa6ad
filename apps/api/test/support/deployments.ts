import { buildCatalog } from '../../src/modules/proxy/catalog/catalog-loader';
import type { CatalogModel, RoutingStrategy } from '../../src/modules/proxy/catalog/catalog.types';
import type { RoutableDeployment } from '../../src/modules/proxy/routing/balancer';
import { CLOSED, type SharedBreaker } from '../../src/modules/proxy/routing/breaker';
import { type DeploymentLoad, IDLE } from '../../src/modules/proxy/routing/deployment-stats';

/** Providers p1…p6, OpenAI-compatible on closed ports (nothing is ever sent to them), timing out after 10 s. */
export const PROVIDER_IDS = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];

/**
 * A catalog model `m` with these deployments, built by the real loader (prices given, so the price catalog is not
 * consulted). Each spec lists `{ provider, weight?, pricing?, rpm?, tpm? }`; upstreamModel defaults to `up-<provider>`.
 */
export function modelWith(
  deployments: Record<string, unknown>[],
  routing: RoutingStrategy = 'weighted',
  extra: Record<string, unknown> = {},
): CatalogModel {
  const catalog = buildCatalog(
    {
      providers: PROVIDER_IDS.map((id, i) => ({
        id,
        type: 'openai',
        baseUrl: `http://127.0.0.1:${i + 1}/v1`,
        timeoutMs: 10_000,
      })),
      models: [
        {
          id: 'm',
          type: 'text',
          methods: ['chat_completions'],
          routing,
          deployments: deployments.map((d) => ({
            upstreamModel: `up-${String(d.provider)}`,
            pricing: { inputPerMTok: 1, outputPerMTok: 2 },
            ...d,
          })),
          ...extra,
        },
      ],
    },
    'test.yaml',
    () => null,
  );
  return catalog.models.get('m')!;
}

/** The model's deployments as the balancer sees them: idle and closed unless given per provider id. */
export function routable(
  model: CatalogModel,
  loads: Record<string, Partial<DeploymentLoad>> = {},
  breakers: Record<string, SharedBreaker> = {},
): RoutableDeployment[] {
  return model.deployments.map((deployment) => ({
    deployment,
    load: { ...IDLE, ...loads[deployment.provider.id] },
    breaker: breakers[deployment.provider.id] ?? CLOSED,
  }));
}
