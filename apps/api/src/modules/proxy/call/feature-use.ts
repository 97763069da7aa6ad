/** What a call used of the priced provider-side features its policy verdict allowed (docs/pricing.md). */
export class FeatureUse {
  /** The searches the provider's usage reported (`usage.server_tool_use.web_search_requests`): cumulative. */
  reportedSearches = 0;
  /** The web_search server_tool_use blocks relayed to the caller. */
  relayedSearches = 0;

  /** The provider's own count so far (its counts are cumulative: the largest is kept). */
  reported(searches: number): void {
    this.reportedSearches = Math.max(this.reportedSearches, Math.ceil(searches));
  }

  /** One search was relayed. */
  relayed(): void {
    this.relayedSearches += 1;
  }
}

export const noFeatureUse = (): FeatureUse => new FeatureUse();
