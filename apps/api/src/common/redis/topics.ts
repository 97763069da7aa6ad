/**
 * The invalidation-bus topic that drops every instance's cached OAuth token lookups: published whenever tokens
 * stop being good before they expire (revocation, consent revoked, client deactivated, updated or deleted).
 *
 * A topic is declared by the module that publishes it (API keys' by modules/keys). This one has three publishers,
 * clients, consents and oauth, and oauth depends on the other two, while usage (whose leases listen) sits below all
 * three: whichever of them declared it, another would have to import that module's face and close a cycle. So
 * the shared layer holds it.
 */
export const OAUTH_TOKENS_TOPIC = 'oauth-tokens';
