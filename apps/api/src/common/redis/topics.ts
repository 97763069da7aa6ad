/**
 * The invalidation-bus topic that drops every instance's cached OAuth token lookups: published whenever tokens
 * stop being good before they expire (revocation, consent revoked, client deactivated, updated or deleted).
 *
 * A topic is declared by the module that publishes it where it can be. This one has three publishers,
 * clients, consents and oauth, and oauth depends on the other two, while usage (whose leases listen) sits below all
 * three: whichever of them declared it, another would have to import that module's face and close a cycle. So
 * the shared layer holds it.
 */
export const OAUTH_TOKENS_TOPIC = 'oauth-tokens';

/**
 * The topic of API keys (created, revoked, renamed, limits changed); its id is the key's hash. Published by
 * modules/keys; usage's reservations listen (a lease taken before the change is given back). It lives here
 * because keys reads each key's spend from usage's face, so usage cannot import keys' face.
 */
export const API_KEYS_TOPIC = 'api-key';
