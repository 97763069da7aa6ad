import type { ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { toAppException } from '../../common/errors/all-exceptions.filter';
import { registerErrorShape, sendError } from '../../common/errors/error-render';
import { applyOpenCors } from '../../common/http/open-cors';
import { type ContextRequest, newRequestId } from '../../common/http/request-context';
import { Lifecycle } from '../../common/lifecycle/lifecycle';
import { RateLimiterService } from '../../common/rate-limit/rate-limiter.service';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { DASHBOARD_GATEWAY_PREFIX, GATEWAY_ROUTES, type GatewayRoute, matchGatewayRoute } from './allowlist';
import { CAPPED_HEADER } from './billing/call-billing';
import { CollectedAnswer } from './call/answer-sink';
import { type ParsedMultipart, readJsonBody, readMultipart } from './call/request-body';
import { isLocal, type RouteMethod } from './catalog/actions';
import type { Caller } from './credentials/caller';
import { CredentialRegistry } from './credentials/credential-registry';
import { GatewayErrorCode, GatewayException } from './errors/gateway.exception';
import { FACES } from './gateway-faces';
import type { Face } from './faces/face';
import { OPENAI } from './faces/openai/openai.routes';
import { CALL_ID_HEADER, GatewayPipeline, MODEL_HEADER, PROVIDER_HEADER } from './pipeline/gateway-pipeline';
import { COST_HEADER } from './relay/relay';
import { Cancel } from './upstream/cancel';
import { ClientGoneError, UpstreamClient } from './upstream/upstream-client';

export { CALL_ID_HEADER, COST_HEADER, MODEL_HEADER, PROVIDER_HEADER };

/** The request as the front door hands it over: node's own, with the id and path it gave it. */
export type GatewayRequest = ContextRequest;

const EXPOSED_HEADERS = `x-request-id, ${CALL_ID_HEADER}, ${COST_HEADER}, ${MODEL_HEADER}, ${PROVIDER_HEADER}, ${CAPPED_HEADER}, retry-after`;

/** 503 while this instance drains: a load balancer retries the call on another one. */
const shuttingDown = () =>
  new GatewayException(GatewayErrorCode.SHUTTING_DOWN, 'This instance is shutting down; retry', {
    headers: { 'Retry-After': '1' },
  });

/** The answer of a call made in-process (callInProcess). */
export interface InProcessAnswer {
  status: number;
  headers: Record<string, number | string | string[]>;
  /** The answer's text (JSON for these calls). */
  text: string;
}

/**
 * The /v1 gateway's face (and its /apikey/v1 and /oauth2/v1 aliases), served on node's own request and response
 * ahead of Express (front-door.ts), so the hot path pays for no framework machinery: CORS, the drain, the
 * allowlist, the credential, the rate limit, the models list, the body; then the call pipeline
 * (pipeline/gateway-pipeline.ts). Other modules make calls in-process through callInProcess. See docs/gateway.md.
 */
@Injectable()
export class GatewayService implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  /** Calls in flight, each with the function that cuts it; drained at shutdown. */
  private readonly inFlight = new Map<Promise<unknown>, () => void>();
  private readonly logger = new Logger('Gateway');
  /** Each face by name (faces.ts). */
  private readonly faces = new Map<string, Face>();

  constructor(
    private readonly pipeline: GatewayPipeline,
    private readonly credentials: CredentialRegistry,
    private readonly upstream: UpstreamClient,
    private readonly lifecycle: Lifecycle,
    private readonly limiter: RateLimiterService,
    private readonly moduleRef: ModuleRef,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Finds every face's service, and has each face's errors answered in its shape on its paths. */
  onModuleInit(): void {
    for (const { definition, service } of FACES) {
      this.faces.set(definition.name, this.moduleRef.get(service, { strict: true }));
      if (definition.errors) registerErrorShape(definition.name, definition.errors);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.upstream.close();
  }

  /**
   * Serves one /v1 call (or an alias's), straight from node's http server: the front door (front-door.ts)
   * sends only gateway paths here, past Express, with the request id and security headers already set.
   */
  serve(req: GatewayRequest, res: ServerResponse): void {
    // CORS is open on the resource APIs: bearer credentials, no cookies. The dashboard's session prefix opens none.
    if (
      !req.path.startsWith(`${DASHBOARD_GATEWAY_PREFIX}/`) &&
      applyOpenCors(req, res, 'GET, POST, OPTIONS', EXPOSED_HEADERS)
    )
      return;
    if (this.lifecycle.draining) {
      sendError(req, res, shuttingDown());
      return;
    }
    // One cancellation per call: the client leaving, or the shutdown's cut, aborts the upstream through it.
    const abort = new Cancel();
    const call = this.handle(req, res, abort).catch((error: unknown) => {
      if (!(error instanceof ClientGoneError)) sendError(req, res, toAppException(error, req, this.logger));
    });
    this.track(call, () => {
      abort.abort(new ClientGoneError('the instance is shutting down'));
      // The client hears that the answer was cut (a stream simply ends; see GatewayPipeline.run).
      if (!res.headersSent) sendError(req, res, shuttingDown());
      else res.end();
    });
  }

  /**
   * One call made in-process by another module (Spaces writes its pages this way) on a caller it authenticated
   * itself: the same pipeline as over HTTP — the catalog, the rate limit, the reservation, settlement, usage record
   * and the drain at shutdown — with the answer collected in memory. JSON routes only. Throws the call's error (an
   * AppException, with its status and OpenAI-format code) when it failed before an answer began.
   */
  async callInProcess(
    caller: Caller,
    action: RouteMethod,
    body: Record<string, unknown>,
    requestId: string | null,
    signal: AbortSignal,
  ): Promise<InProcessAnswer> {
    if (this.lifecycle.draining) throw shuttingDown();
    const route = inProcessRoute(action);
    const abort = new Cancel();
    const cancel = () => abort.abort(new ClientGoneError('the caller stopped waiting'));
    if (signal.aborted) cancel();
    signal.addEventListener('abort', cancel, { once: true });
    const answer = new CollectedAnswer();
    const run = (async () => {
      await this.limitRate(caller);
      const raw = Buffer.from(JSON.stringify(body));
      await this.pipeline.run(
        {
          face: this.faces.get(route.face)!,
          route,
          params: {},
          caller,
          requestId: requestId ?? newRequestId(),
          requestHeaders: { 'content-type': 'application/json' },
          json: body,
          raw,
          form: null,
          signal: abort,
          path: `/v1${route.template}`,
          query: '',
        },
        answer,
        null,
      );
    })();
    this.track(run, () => abort.abort(new ClientGoneError('the instance is shutting down')));
    try {
      await run;
    } finally {
      signal.removeEventListener('abort', cancel);
    }
    return { status: answer.statusCode, headers: answer.headers, text: answer.text };
  }

  /**
   * Graceful shutdown, before any module's beforeApplicationShutdown (where usage records and settlements are
   * flushed): new calls get 503; calls in flight run on for SHUTDOWN_GRACE_SECONDS, then are cut like a client
   * that left (the upstream is aborted and what was delivered is billed); then each has recorded and settled.
   */
  async onModuleDestroy(): Promise<void> {
    this.lifecycle.beginDrain();
    if (!this.inFlight.size) return;
    this.logger.log(`draining ${this.inFlight.size} calls in flight`);
    const all = () => Promise.allSettled([...this.inFlight.keys()]);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'cut'>(
      (resolve) => (timer = setTimeout(() => resolve('cut'), this.config.shutdownGraceSeconds * 1000)),
    );
    if ((await Promise.race([all(), graceOver])) === 'cut') {
      this.logger.warn(`cutting ${this.inFlight.size} calls still running after ${this.config.shutdownGraceSeconds}s`);
      for (const cut of this.inFlight.values()) cut();
      await all();
    }
    clearTimeout(timer);
  }

  private track(call: Promise<unknown>, cut: () => void): void {
    this.inFlight.set(call, cut);
    void call.finally(() => this.inFlight.delete(call)).catch(() => undefined);
  }

  private async limitRate(caller: Caller): Promise<void> {
    const rpm = caller.rateLimitRpm ?? this.config.gatewayRpm;
    if (rpm > 0)
      await this.limiter.consume({
        bucket: 'gateway-rpm',
        subject: caller.rateLimitSubject,
        max: rpm,
        windowSeconds: 60,
      });
  }

  private async handle(req: GatewayRequest, res: ServerResponse, abort: Cancel): Promise<void> {
    const match = matchGatewayRoute(req.method ?? 'GET', req.path);
    if (!match) throw new GatewayException(GatewayErrorCode.ENDPOINT_NOT_ALLOWED, 'Endpoint not allowed');
    const face = this.faces.get(match.route.face)!;
    const url = req.url ?? '';
    const query = url.length > req.path.length ? url.slice(req.path.length + 1) : '';
    const caller = await this.credentials.authenticate(req, match.prefix, face.credential?.(req, query));
    await this.limitRate(caller);

    res.on('close', () => {
      if (!res.writableFinished) abort.abort(new ClientGoneError('client closed the request'));
    });
    let json: Record<string, unknown> | null = null;
    let raw: Buffer | null = null;
    let form: ParsedMultipart | null = null;
    try {
      // The SDK sends POST /videos as multipart (it may carry an input_reference file); any JSON route may.
      const multipart = /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');
      if (match.route.body === 'multipart' || (match.route.body === 'json' && multipart))
        form = await readMultipart(req);
      else if (match.route.body === 'json') ({ json, raw } = await readJsonBody(req));
      const input = {
        face,
        route: match.route,
        params: match.params,
        caller,
        requestId: req.requestId ?? newRequestId(),
        requestHeaders: req.headers,
        json,
        raw,
        form,
        signal: abort,
        path: req.path,
        query,
      };
      // A models list, a token count: the face answers them itself (nothing forwarded, nothing billed).
      if (isLocal(match.route.action)) await face.serve!(input, res, this.pipeline.context);
      else await this.pipeline.run(input, res, req);
    } finally {
      if (form) await form.cleanup();
    }
  }
}

/** The allowlist's route of a JSON method, for calls made in-process. */
function inProcessRoute(action: RouteMethod): GatewayRoute {
  const route = GATEWAY_ROUTES.find(
    (candidate) => candidate.face === OPENAI && candidate.action === action && candidate.body === 'json',
  );
  if (!route) throw new Error(`${action} cannot be called in-process`);
  return route;
}
