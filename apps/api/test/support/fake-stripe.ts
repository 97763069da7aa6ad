import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeLocally, listenLocally } from './local-server';
import Stripe from 'stripe';

/**
 * A small Stripe for tests (docs/payments.md#tests-and-what-they-measured): node:http on 127.0.0.1 speaking Stripe's wire format for the
 * Checkout Sessions the app uses: form-encoded requests with bracketed keys, JSON objects with
 * `object: 'checkout.session'`, Idempotency-Key replay, 401 without a secret key and 404 `resource_missing`
 * errors. Sessions live in a Map; tests play the customer with pay(), and Stripe's webhook with event().
 * Connect, for makers' payouts (docs/earnings.md): `POST /v1/accounts` (`object: 'account'`), `/v1/account_links`
 * (`object: 'account_link'`, a hosted onboarding URL here) and `/v1/transfers` (`object: 'transfer'`, to an
 * account made here, whole cents), each replayed for its Idempotency-Key; `failTransfers` answers the next that
 * many transfers with Stripe's 500 api_error.
 * Refunds and disputes (docs/payments.md): a paid session has a PaymentIntent and a charge; `POST /v1/refunds`
 * (`object: 'refund'`, refused above what is left of the charge), `GET /v1/refunds?charge=` and
 * `GET /v1/checkout/sessions?payment_intent=` (Stripe's lists); tests refund as Stripe's dashboard would with
 * refund(), and deliver `charge.refunded` with chargeEvent() and `charge.dispute.*` with disputeEvent().
 */
export interface FakeCheckoutSession {
  id: string;
  object: 'checkout.session';
  amount_subtotal: number;
  amount_total: number;
  cancel_url: string;
  client_reference_id: string | null;
  created: number;
  currency: string;
  expires_at: number;
  livemode: false;
  metadata: Record<string, string>;
  mode: string;
  payment_status: 'paid' | 'unpaid' | 'no_payment_required';
  payment_intent: string | null;
  status: 'open' | 'complete' | 'expired';
  success_url: string;
  url: string | null;
}

export interface FakeStripeRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  stripeVersion: string | undefined;
  form: Record<string, unknown>;
}

export class FakeStripe {
  readonly sessions = new Map<string, FakeCheckoutSession>();
  readonly requests: FakeStripeRequest[] = [];
  private readonly replies = new Map<string, unknown>();
  readonly accounts = new Map<
    string,
    { id: string; object: 'account'; type: string; metadata: Record<string, string> }
  >();
  readonly transfers = new Map<
    string,
    { id: string; object: 'transfer'; amount: number; currency: string; destination: string }
  >();
  readonly refunds = new Map<
    string,
    { id: string; object: 'refund'; amount: number; charge: string; payment_intent: string; status: 'succeeded' }
  >();
  failTransfers = 0;
  private server!: Server;
  url = '';

  static readonly secretKey = 'sk_test_fake_stripe_key';
  static readonly webhookSecret = 'whsec_fake_stripe_webhook_secret';

  static async start(): Promise<FakeStripe> {
    const fake = new FakeStripe();
    const { server, origin } = await listenLocally((req, res) => fake.handle(req, res));
    fake.server = server;
    fake.url = origin;
    return fake;
  }

  stop(): Promise<void> {
    return closeLocally(this.server);
  }

  /** The customer completes the hosted page. `async` leaves the payment processing (a bank debit). */
  pay(id: string, { async = false } = {}): FakeCheckoutSession {
    const session = this.get(id);
    session.status = 'complete';
    session.payment_status = async ? 'unpaid' : 'paid';
    session.payment_intent ??= `pi_${randomBytes(12).toString('hex')}`;
    return session;
  }

  /** A delayed payment clears. */
  clear(id: string): FakeCheckoutSession {
    const session = this.get(id);
    session.payment_status = 'paid';
    return session;
  }

  expire(id: string): FakeCheckoutSession {
    const session = this.get(id);
    session.status = 'expired';
    session.url = null;
    return session;
  }

  /** A webhook delivery for the session as it stands now: the raw body and its Stripe-Signature header. */
  event(type: string, sessionId: string, secret = FakeStripe.webhookSecret): { payload: string; signature: string } {
    const payload = JSON.stringify({
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000),
      data: { object: structuredClone(this.get(sessionId)) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    });
    return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret }) };
  }

  /** A refund made in Stripe's dashboard (not through the API by the app). */
  refund(sessionId: string, amount: number): string {
    const made = this.makeRefund({ payment_intent: this.get(sessionId).payment_intent, amount: String(amount) });
    if ('error' in made) throw new Error(made.error.message);
    return made.id;
  }

  /** A `charge.*` delivery for the charge of a paid session as it stands now (amount_refunded included). */
  chargeEvent(type: string, sessionId: string): { payload: string; signature: string } {
    const session = this.get(sessionId);
    const intent = session.payment_intent!;
    return this.deliver(type, {
      id: chargeOf(intent),
      object: 'charge',
      amount: session.amount_total,
      amount_refunded: this.refundedOf(intent),
      currency: session.currency,
      payment_intent: intent,
      refunded: this.refundedOf(intent) === session.amount_total,
      status: 'succeeded',
    });
  }

  /** A `charge.dispute.*` delivery: the dispute `id` of a paid session's charge, for `amount` cents. */
  disputeEvent(
    type: string,
    sessionId: string,
    dispute: { id: string; amount: number; status: string },
  ): { payload: string; signature: string } {
    const intent = this.get(sessionId).payment_intent!;
    return this.deliver(type, {
      ...dispute,
      object: 'dispute',
      charge: chargeOf(intent),
      currency: 'usd',
      payment_intent: intent,
      reason: 'fraudulent',
    });
  }

  private deliver(type: string, object: unknown, secret = FakeStripe.webhookSecret) {
    const payload = JSON.stringify({
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    });
    return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret }) };
  }

  private refundedOf(intent: string): number {
    let total = 0;
    for (const refund of this.refunds.values()) if (refund.payment_intent === intent) total += refund.amount;
    return total;
  }

  /** Stripe's refund: of a paid PaymentIntent, at most what is left of its charge (the default). */
  private makeRefund(form: Record<string, any>) {
    const invalid = (param: string, message: string) => ({ error: { type: 'invalid_request_error', message, param } });
    const session = [...this.sessions.values()].find(
      (s) => s.payment_intent === form.payment_intent && s.payment_status === 'paid',
    );
    if (!session) return invalid('payment_intent', `No such payment_intent: '${form.payment_intent}'`);
    const left = session.amount_total - this.refundedOf(session.payment_intent!);
    const amount = form.amount === undefined ? left : Number(form.amount);
    if (!Number.isInteger(amount) || amount < 1) return invalid('amount', 'Invalid positive integer');
    if (amount > left)
      return invalid('amount', `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`);
    const refund = {
      id: `re_${randomBytes(12).toString('hex')}`,
      object: 'refund' as const,
      amount,
      charge: chargeOf(session.payment_intent!),
      currency: session.currency,
      metadata: form.metadata ?? {},
      payment_intent: session.payment_intent!,
      status: 'succeeded' as const,
      created: Math.floor(Date.now() / 1000),
    };
    this.refunds.set(refund.id, refund);
    return refund;
  }

  private get(id: string): FakeCheckoutSession {
    const session = this.sessions.get(id);
    if (!session) throw new Error(`the fake Stripe has no session ${id}`);
    return session;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? '/', this.url).pathname;
    const form = parseForm(Buffer.concat(chunks).toString('utf8'));
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    this.requests.push({
      method: req.method ?? '',
      path,
      idempotencyKey,
      stripeVersion: req.headers['stripe-version'] as string | undefined,
      form,
    });
    if (!/^Bearer sk_test_\w+$/.test(req.headers.authorization ?? ''))
      return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });

    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const replay = idempotencyKey ? this.replies.get(idempotencyKey) : undefined;
      if (replay) return send(res, 200, replay, { 'Idempotent-Replayed': 'true' });
      const session = this.create(form);
      if ('error' in session) return send(res, 400, session);
      if (idempotencyKey) this.replies.set(idempotencyKey, session);
      return send(res, 200, session);
    }
    if (req.method === 'POST' && ['/v1/accounts', '/v1/account_links', '/v1/transfers'].includes(path)) {
      const replay = idempotencyKey ? this.replies.get(`${path}:${idempotencyKey}`) : undefined;
      if (replay) return send(res, 200, replay, { 'Idempotent-Replayed': 'true' });
      if (path === '/v1/transfers' && this.failTransfers > 0) {
        this.failTransfers -= 1;
        return send(res, 500, { error: { type: 'api_error', message: 'An unknown error occurred' } });
      }
      const made = this.connect(path, form);
      if ('error' in made) return send(res, 400, made);
      if (idempotencyKey) this.replies.set(`${path}:${idempotencyKey}`, made);
      return send(res, 200, made);
    }
    if (req.method === 'POST' && path === '/v1/refunds') {
      const replay = idempotencyKey ? this.replies.get(`${path}:${idempotencyKey}`) : undefined;
      if (replay) return send(res, 200, replay, { 'Idempotent-Replayed': 'true' });
      const made = this.makeRefund(form);
      if ('error' in made) return send(res, 400, made);
      if (idempotencyKey) this.replies.set(`${path}:${idempotencyKey}`, made);
      return send(res, 200, made);
    }
    const query = new URL(req.url ?? '/', this.url).searchParams;
    if (req.method === 'GET' && (path === '/v1/refunds' || path === '/v1/checkout/sessions')) {
      const data =
        path === '/v1/refunds'
          ? [...this.refunds.values()].filter((r) => r.charge === query.get('charge'))
          : [...this.sessions.values()].filter(
              (s) => s.payment_intent && s.payment_intent === query.get('payment_intent'),
            );
      return send(res, 200, { object: 'list', data, has_more: false, url: path });
    }
    const match = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && match) {
      const session = this.sessions.get(decodeURIComponent(match[1]));
      if (!session)
        return send(res, 404, {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            param: 'session',
            message: `No such checkout.session: '${match[1]}'`,
          },
        });
      return send(res, 200, session);
    }
    return send(res, 404, {
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` },
    });
  }

  /** Connect's objects in Stripe's shape, or its invalid_request_error. */
  private connect(path: string, form: Record<string, any>): Record<string, unknown> {
    const invalid = (param: string, message: string) => ({ error: { type: 'invalid_request_error', message, param } });
    const created = Math.floor(Date.now() / 1000);
    if (path === '/v1/accounts') {
      const account = {
        id: `acct_${randomBytes(8).toString('hex')}`,
        object: 'account' as const,
        type: String(form.type ?? 'standard'),
        metadata: form.metadata ?? {},
        charges_enabled: false,
        payouts_enabled: false,
        details_submitted: false,
        created,
      };
      this.accounts.set(account.id, account);
      return account;
    }
    if (path === '/v1/account_links') {
      if (!this.accounts.has(form.account)) return invalid('account', `No such account: '${form.account}'`);
      if (!form.refresh_url || !form.return_url) return invalid('return_url', 'Missing required param: return_url.');
      return {
        object: 'account_link',
        created,
        expires_at: created + 300,
        url: `${this.url}/setup/e/${form.account}/${randomBytes(6).toString('hex')}`,
      };
    }
    const amount = Number(form.amount);
    if (!Number.isInteger(amount) || amount < 1) return invalid('amount', 'Invalid positive integer');
    if (!this.accounts.has(form.destination))
      return invalid('destination', `No such destination: '${form.destination}'`);
    const transfer = {
      id: `tr_${randomBytes(12).toString('hex')}`,
      object: 'transfer' as const,
      amount,
      amount_reversed: 0,
      currency: String(form.currency),
      destination: String(form.destination),
      metadata: form.metadata ?? {},
      reversed: false,
      created,
    };
    this.transfers.set(transfer.id, transfer);
    return transfer;
  }

  private create(
    form: Record<string, any>,
  ): FakeCheckoutSession | { error: { type: string; message: string; param: string } } {
    const item = form.line_items?.[0];
    const unitAmount = Number(item?.price_data?.unit_amount);
    const quantity = Number(item?.quantity ?? 1);
    if (form.mode !== 'payment')
      return { error: { type: 'invalid_request_error', message: 'mode must be payment here', param: 'mode' } };
    if (!Number.isInteger(unitAmount) || unitAmount < 50)
      return {
        error: {
          type: 'invalid_request_error',
          message: 'unit_amount is too small',
          param: 'line_items[0][price_data][unit_amount]',
        },
      };
    if (!form.success_url)
      return {
        error: { type: 'invalid_request_error', message: 'Missing required param: success_url.', param: 'success_url' },
      };
    const id = `cs_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;
    const created = Math.floor(Date.now() / 1000);
    const session: FakeCheckoutSession = {
      id,
      object: 'checkout.session',
      amount_subtotal: unitAmount * quantity,
      amount_total: unitAmount * quantity,
      cancel_url: form.cancel_url ?? '',
      client_reference_id: form.client_reference_id ?? null,
      created,
      currency: String(item.price_data.currency),
      expires_at: created + 86_400,
      livemode: false,
      metadata: form.metadata ?? {},
      mode: 'payment',
      payment_status: 'unpaid',
      payment_intent: null,
      status: 'open',
      success_url: String(form.success_url).replace('{CHECKOUT_SESSION_ID}', id),
      url: `${this.url}/c/pay/${id}`,
    };
    this.sessions.set(id, session);
    return session;
  }
}

/** The fake's one charge per PaymentIntent. */
const chargeOf = (intent: string) => intent.replace(/^pi_/, 'ch_');

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': `req_${randomBytes(7).toString('hex')}`,
    ...headers,
  });
  res.end(JSON.stringify(body));
}

/** Stripe's form encoding: `line_items[0][price_data][unit_amount]=1500` → nested objects and arrays. */
export function parseForm(body: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: any = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else node = node[part] ??= /^\d+$/.test(path[i + 1]) ? [] : {};
    });
  }
  return root;
}
