import { Injectable } from '@nestjs/common';
import type { OAuthPrincipal } from '../../common/auth/principal';

/** Checks an app's OAuth access token: the principal it acts as, or null when it is invalid, expired or revoked. */
export interface AppTokenVerifier {
  verify(token: string): Promise<OAuthPrincipal | null>;
}

/**
 * Where the global guard (session-auth.guard.ts) gets apps' OAuth access tokens checked, on routes that say
 * `@Access({ oauth: true })`. The OAuth module issues those tokens and depends on this module, so this module cannot
 * import it: the OAuth module hands its verifier in at start-up instead (modules/oauth/oauth-bearer.verifier.ts).
 */
@Injectable()
export class AppTokensService {
  private verifier: AppTokenVerifier | undefined;

  /** Called once, by the module that issues app tokens. */
  useVerifier(verifier: AppTokenVerifier): void {
    if (this.verifier && this.verifier !== verifier) throw new Error('App access tokens already have a verifier');
    this.verifier = verifier;
  }

  verify(token: string): Promise<OAuthPrincipal | null> {
    // A server that accepts app tokens without the module that checks them is miswired: a 500, not a 401.
    if (!this.verifier) throw new Error('No verifier of app access tokens: is the OAuth module imported?');
    return this.verifier.verify(token);
  }
}
