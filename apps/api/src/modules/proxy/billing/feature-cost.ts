import type { FeatureUse } from '../call/feature-use';
import type { PolicyVerdict } from '../policy/verdict';
import { roundUp } from './pricing';

interface Metered {
  policy: PolicyVerdict | null;
  featureUse: FeatureUse;
}

/**
 * What the call's provider-side features cost, on top of its tokens: each search at the catalog's price, the
 * larger of what the provider reported and what was relayed, never above the max_uses the call reserved for.
 */
export function featureCostMicros(call: Metered): number {
  const search = call.policy?.webSearch;
  if (!search) return 0;
  const searches = Math.min(
    search.maxUses,
    Math.max(call.featureUse.reportedSearches, call.featureUse.relayedSearches),
  );
  return searches ? roundUp(searches * search.perSearch * 1e6) : 0;
}
