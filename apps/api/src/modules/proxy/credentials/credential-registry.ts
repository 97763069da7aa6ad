import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { notePrincipal } from '../../../common/http/request-context';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import type { Caller, CredentialStrategy, PrefixKind } from './caller';

/** The credential strategies the gateway knows, in registration order. Modules register theirs at start. */
@Injectable()
export class CredentialRegistry {
  private readonly strategies: CredentialStrategy[] = [];

  register(strategy: CredentialStrategy): void {
    this.strategies.push(strategy);
  }

  /**
   * `alternative`: the credential a face's clients send besides `Authorization: Bearer` (Anthropic's `x-api-key`,
   * Google's `x-goog-api-key`), read when no Authorization header is given, and how to ask for it when none is.
   */
  async authenticate(
    req: IncomingMessage,
    prefix: PrefixKind,
    alternative?: { token: string | undefined; hint: string },
  ): Promise<Caller> {
    // RFC 6750 section 2.3 / OAuth 2.1: a credential in the URL ends up in logs and histories; refuse it.
    if (/[?&](access_token|api_key)=/i.test(req.url ?? ''))
      throw new GatewayException(
        GatewayErrorCode.INVALID_REQUEST,
        'Send the credential in the Authorization header, never in the URL',
        { param: 'access_token' },
      );
    const header = req.headers.authorization;
    // The dashboard's gateway takes the session cookie only, never a bearer credential.
    if (prefix === 'dashboard') {
      if (header !== undefined)
        throw new GatewayException(
          GatewayErrorCode.INVALID_REQUEST,
          'This path takes the dashboard session only; send API keys and tokens to /v1',
        );
      return this.resolveWith(
        this.strategies.find((s) => s.prefixes.includes(prefix)),
        '',
        req,
        prefix,
      );
    }
    const token = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : alternative?.token;
    if (!token) {
      throw new GatewayException(
        GatewayErrorCode.MISSING_CREDENTIALS,
        header
          ? 'The Authorization header must be "Bearer <key or token>"'
          : (alternative?.hint ?? 'Missing credentials: send "Authorization: Bearer <API key or access token>"'),
      );
    }
    const accepted = this.strategies.filter((strategy) => strategy.prefixes.includes(prefix));
    return this.resolveWith(
      accepted.find((candidate) => candidate.claims(token)),
      token,
      req,
      prefix,
    );
  }

  private async resolveWith(
    strategy: CredentialStrategy | undefined,
    token: string,
    req: IncomingMessage,
    prefix: PrefixKind,
  ): Promise<Caller> {
    if (strategy) {
      const caller = await strategy.resolve(token, req, prefix);
      notePrincipal(req, caller.kind);
      return caller;
    }
    // Nothing here recognises the token: on the API-key alias that is a bad key (403), elsewhere a bad token (401).
    if (prefix === 'apikey') throw new GatewayException(GatewayErrorCode.INVALID_API_KEY, 'Invalid API key');
    throw new GatewayException(GatewayErrorCode.INVALID_TOKEN, 'Invalid or expired access token');
  }
}
