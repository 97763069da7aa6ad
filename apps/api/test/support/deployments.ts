import { buildCatalog, type CatalogModel } from '../../src/modules/proxy';

/** Providers p1…p6, OpenAI-compatible on closed ports (nothing is ever sent to them), timing out after 10 s. */
export const PROVIDER_IDS = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];

/**
 * A catalog model `m` with these deployments, built by the real loader (prices given, so the price catalog is not
 * consulted). Each spec lists `{ provider, weight?, pricing?, rpm?, tpm? }`; upstreamModel defaults to `up-<provider>`.
 */
export function modelWith(
  deployments: Record<string, unknown>[],
  routing: CatalogModel['routing'] = 'weighted',
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
