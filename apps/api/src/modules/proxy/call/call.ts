import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Reservation } from '../../usage';
import type { CatalogModel } from '../catalog/catalog.types';
import type { Caller } from '../credentials/caller';
import type { PolicyVerdict } from '../policy/verdict';
import type { Cancel } from '../upstream/cancel';
import type { Json } from '../wire/frame';
import type { AnswerWriter } from './answer-writer';
import { Delivered } from './delivered';
import type { Estimate, OutputField } from './estimate';
import { FeatureUse } from './feature-use';
import type { ParsedMultipart } from './request-body';
import type { GatewayRoute } from './route';
import { mergeUsage, type Metered, type NormalisedUsage, type UsageNote } from './usage';

/** The wire format of a request the pipeline takes as its own: OpenAI's (chat completions and the other routes). */
export const OPENAI_FORMAT = 'openai';

/** What a face hands the pipeline for one call: its request, as it goes to the provider, and how it is answered. */
export interface CallRequest {
  /** The request's wire format: OPENAI_FORMAT, or a provider's own that the model's provider takes natively. */
  format: string;
  json: Json | null;
  /** The JSON's own bytes (forwarded as they are where nothing changes). */
  raw: Buffer | null;
  form: ParsedMultipart | null;
  stream: boolean;
  /** How the face writes this call's answer (and its errors once the answer began). */
  writer: AnswerWriter;
  /** What the request policy decided for the call's model. */
  policy: PolicyVerdict;
  /** The request policy for another model (a fallback), which throws when that model cannot take the request. */
  policyFor: (model: CatalogModel, call: Call) => PolicyVerdict;
  /** The fields that bound the output, when the format fixes them (else the estimate picks them). */
  outputFields?: OutputField[];
  /** Keeps the rest of the request within a lowered output bound (false: it cannot be served within it). */
  fitOutput?: (json: Json, tokens: number) => boolean;
}

/** What every call starts from: who called what, on which route. */
export interface CallStart {
  requestId: string;
  route: GatewayRoute;
  params: Record<string, string>;
  caller: Caller;
  requestHeaders: IncomingHttpHeaders;
  signal: Cancel;
}

/**
 * One gateway call (docs/architecture.md, "The call pipeline"): what was asked (route, caller, request), what it may
 * cost (estimate, reservation, output bound), what the provider did (accepted, usage, what was relayed) and what it
 * was charged. Its state changes only through the named operations below, each called by the one part that owns
 * it: the pipeline (switchTo, attempting), billing (hold, release, boundOutput, charged), the relay and the providers
 * (accept, firstByte), metering and the providers' meters (noteUsage, noteMetered; `delivered` and `featureUse`
 * are append-only records of their own).
 */
export class Call {
  /** The server's own id of the call (random): the key of its reservation, ledger debit and usage record. */
  readonly callId = randomUUID();
  /** The caller's X-Request-Id (or one made for it): for correlation only, never a key. */
  readonly requestId: string;
  readonly route: GatewayRoute;
  /** What the caller called, for its usage record (the route's name: `messages` on Anthropic's face). */
  readonly calledAs: string;
  readonly params: Record<string, string>;
  readonly caller: Caller;
  /** The caller's request headers, of which only the allowlisted ones go upstream (upstream/forwarded-headers.ts). */
  readonly requestHeaders: IncomingHttpHeaders;
  readonly format: string;
  /** The request as it goes to the provider; billing writes the output bound into it (boundOutput). */
  readonly json: Json | null;
  readonly raw: Buffer | null;
  readonly form: ParsedMultipart | null;
  readonly stream: boolean;
  readonly signal: Cancel;
  readonly startedAt: Date;
  readonly writer: AnswerWriter;
  readonly #policyFor: (model: CatalogModel, call: Call) => PolicyVerdict;
  readonly outputFields: OutputField[] | undefined;
  readonly fitOutput: ((json: Json, tokens: number) => boolean) | undefined;
  /** What a stream relayed (metered only if the call ends without the provider's usage). */
  readonly delivered: Delivered;
  /** The priced provider-side features the call used (searches), billed on top of its tokens. */
  readonly featureUse = new FeatureUse();

  #model: CatalogModel;
  #policy: PolicyVerdict;
  #estimate: Estimate | null = null;
  #reservation: Reservation | null = null;
  #outputBound: Record<string, number> | null = null;
  #outputBoundReplaces = false;
  #chargedMicros: number | null = null;
  #firstByteAt: number | null = null;
  #accepted = false;
  #onAccept: (() => void) | null = null;
  readonly #metered: Metered = {};
  readonly #reported: Json = {};
  #usageKnown = false;
  #usageFinal = false;
  #usageVersion = 0;
  #priced: object | null = null;
  /** What the pipeline worked out for the request as it stands, by deployment (pipeline/call-routes.ts). */
  #kept: Map<object, object> | null = null;

  constructor(start: CallStart, startedAt: Date, model: CatalogModel, request: CallRequest) {
    this.requestId = start.requestId;
    this.route = start.route;
    this.calledAs = start.route.name ?? start.route.action;
    this.params = start.params;
    this.caller = start.caller;
    this.requestHeaders = start.requestHeaders;
    this.signal = start.signal;
    this.startedAt = startedAt;
    this.format = request.format;
    this.json = request.json;
    this.raw = request.raw;
    this.form = request.form;
    this.stream = request.stream;
    this.writer = request.writer;
    this.#policyFor = request.policyFor;
    this.outputFields = request.outputFields;
    this.fitOutput = request.fitOutput;
    this.#model = model;
    this.#policy = request.policy;
    this.delivered = new Delivered(start.route.action === 'responses');
  }

  get model(): CatalogModel {
    return this.#model;
  }
  /** What the request policy found (policy/): input bounds and priced features to add. */
  get policy(): PolicyVerdict {
    return this.#policy;
  }
  /** The call's worst case and input estimate (null for calls that cost nothing). */
  get estimate(): Estimate | null {
    return this.#estimate;
  }
  get reservation(): Reservation | null {
    return this.#reservation;
  }
  /** The output bound the gateway writes into the request, field by field (docs/budgets.md). */
  get outputBound(): Record<string, number> | null {
    return this.#outputBound;
  }
  /** Whether the caller's body already had one of those fields (else the bound is only put in front of it). */
  get outputBoundReplaces(): boolean {
    return this.#outputBoundReplaces;
  }
  /** What the call was charged, when it was settled before its answer went out (a charge above its hold). */
  get chargedMicros(): number | null {
    return this.#chargedMicros;
  }
  /** When the answer's first byte went out (epoch ms): its status line, or a stream's first frame. */
  get firstByteAt(): number | null {
    return this.#firstByteAt;
  }
  /** The provider accepted the call (answered 2xx): from then on, at least the input estimate is charged. */
  get accepted(): boolean {
    return this.#accepted;
  }
  get metered(): Readonly<Metered> {
    return this.#metered;
  }
  /** The provider's usage counts as reported so far, merged event by event (call/usage.ts, mergeUsage). */
  get reportedUsage(): Readonly<Json> {
    return this.#reported;
  }
  get usageKnown(): boolean {
    return this.#usageKnown;
  }
  /** The usage is the provider's last word on the call (else it is partial: billed with what was relayed after it). */
  get usageFinal(): boolean {
    return this.#usageFinal;
  }
  /** Counts the changes of `metered`: what is computed from it can be kept until this moves (priced-usage.ts). */
  get usageVersion(): number {
    return this.#usageVersion;
  }
  /** What billing priced the usage at (priced-usage.ts), kept with the call; billing checks it is still current. */
  get priced(): object | null {
    return this.#priced;
  }

  // ---- the pipeline ------------------------------------------------------------------------------------------

  /** The request policy's verdict of this call's request for another model (a fallback); throws if it refuses. */
  policyFor(model: CatalogModel): PolicyVerdict {
    return this.#policyFor(model, this);
  }

  /** The call goes to a fallback model, with that model's policy verdict and estimate. */
  switchTo(model: CatalogModel, policy: PolicyVerdict, estimate: Estimate): void {
    this.#model = model;
    this.#policy = policy;
    this.#estimate = estimate;
  }

  /** An upstream attempt begins: `onAccept` is told when its provider accepts the call (routing's first byte). */
  attempting(onAccept: (() => void) | null): void {
    this.#onAccept = onAccept;
  }

  // ---- billing -----------------------------------------------------------------------------------------------

  /** The call's estimate, before anything is held for it. */
  estimated(estimate: Estimate): void {
    this.#estimate = estimate;
  }

  /** What the budget holds for the call. */
  hold(reservation: Reservation): void {
    this.#reservation = reservation;
  }

  /** Hands the reservation over to be settled, exactly once: the call holds nothing after it. */
  release(): Reservation | null {
    const reservation = this.#reservation;
    this.#reservation = null;
    return reservation;
  }

  /** Writes `tokens` into the request's output fields: the bound the call reserved for. */
  boundOutput(fields: readonly string[], tokens: number): void {
    const json = this.json!;
    this.#outputBoundReplaces ||= fields.some((field) => field in json);
    const bound: Record<string, number> = {};
    for (const field of fields) bound[field] = json[field] = tokens;
    this.#outputBound = bound;
    this.requestChanged();
  }

  /**
   * What the pipeline worked out from the request as it stands (a deployment's route: its policy verdict and
   * estimate, pipeline/call-routes.ts), kept by `key` until the gateway changes the request (requestChanged).
   */
  keptFor(key: object): object | undefined {
    return this.#kept?.get(key);
  }
  keepFor(key: object, value: object): void {
    (this.#kept ??= new Map()).set(key, value);
  }
  /** The gateway changed the request (its output bound, a field that must fit it): nothing kept from it holds. */
  requestChanged(): void {
    this.#kept = null;
  }

  /** Keeps what billing priced the usage at (priced-usage.ts). */
  keepPriced(priced: object): void {
    this.#priced = priced;
  }

  /** The call was charged (and settled) before its answer ended. */
  charged(micros: number): number {
    return (this.#chargedMicros = micros);
  }

  // ---- the provider's answer ---------------------------------------------------------------------------------

  /** The provider accepted the call (its status line was 2xx). */
  accept(): void {
    this.#accepted = true;
    const onAccept = this.#onAccept;
    this.#onAccept = null;
    onAccept?.();
  }

  /** The answer's first byte went out (the first time only). */
  firstByte(): void {
    this.#firstByteAt ??= Date.now();
  }

  /**
   * Usage the provider reported: `reported` (in its own format) is merged with what earlier events reported
   * (mergeUsage: its counts are cumulative) and `read` by the provider's parser into the normalised components.
   * `final`: the provider's last word on the call. False when the report holds no usage (no input count).
   */
  noteUsage(
    reported: unknown,
    read: (merged: Json, note?: UsageNote) => NormalisedUsage | null,
    final: boolean,
    note?: UsageNote,
  ): boolean {
    const usage = read(mergeUsage(this.#reported, reported), note);
    if (!usage) return false;
    Object.assign(this.#metered, usage);
    this.#usageKnown = true;
    this.#usageFinal ||= final;
    this.#usageVersion += 1;
    return true;
  }

  /** What the answer itself says was served (images, seconds) or the request does (characters): final. */
  noteMetered(metered: Metered): void {
    Object.assign(this.#metered, metered);
    this.#usageKnown = true;
    this.#usageVersion += 1;
  }
}
