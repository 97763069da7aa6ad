import type { ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { type DeploymentStatus, MODEL_METHODS, MODEL_TYPES } from '@switchyard/shared-dto';
import { writeJson } from '../../../../common/errors/error-render';
import { type Call, type CallRequest, OPENAI_FORMAT } from '../../call/call';
import { CatalogService } from '../../catalog/catalog.service';
import type { CatalogModel } from '../../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../../errors/gateway.exception';
import { requestPolicy, withWrites } from '../../policy/request-policy';
import type { PolicyVerdict } from '../../policy/verdict';
import { phaseOf } from '../../routing/breaker';
import { RoutingService } from '../../routing/routing.service';
import { VideoJobsRepository } from '../../videos/video-jobs.repository';
import { bodyModelId, type Face, type FaceInput, streamFlag } from '../face';
import { OPENAI_FACE } from './openai.definition';
import { openAiWriter } from './openai-writer';

/** The request policy of an OpenAI request for another model (a fallback): the same rules, that model's catalog entry. */
const policyFor = (model: CatalogModel, call: Call): PolicyVerdict =>
  requestPolicy(call.route.action, model, call.json, call.form);

/**
 * OpenAI's API (docs/gateway.md), the gateway's own format: a request goes on as it came (the request policy's writes
 * aside), and the answer comes back as the provider wrote it (openai-writer.ts). Answers the models list itself.
 */
@Injectable()
export class OpenAiFace implements Face {
  readonly definition = OPENAI_FACE;

  constructor(
    private readonly catalog: CatalogService,
    private readonly videos: VideoJobsRepository,
    private readonly routing: RoutingService,
  ) {}

  /** A deployment's breaker as GET /v1/models shows it (this instance's copy of the shared state). */
  private readonly health = (key: string): DeploymentStatus => phaseOf(this.routing.store.breaker(key), Date.now());

  modelId(input: FaceInput): string | Promise<string> {
    const { route, params, caller } = input;
    if (route.action === 'video_retrieve' || route.action === 'video_content' || route.action === 'video_remix')
      return this.videos.modelOf(params.id, caller.userId).then((id) => {
        if (!id)
          throw new GatewayException(GatewayErrorCode.VIDEO_NOT_FOUND, `No video ${params.id}`, { param: 'video_id' });
        return id;
      });
    return bodyModelId(input);
  }

  prepare(input: FaceInput, model: CatalogModel): CallRequest {
    const stream = streamFlag(input.json);
    // Nothing is reserved or forwarded that the request policy refuses (policy/request-policy.ts).
    const policy = requestPolicy(input.route.action, model, input.json, input.form);
    const written = withWrites(input, policy);
    return {
      format: OPENAI_FORMAT,
      json: written.json ?? input.json,
      raw: written.raw ?? input.raw,
      form: input.form,
      stream,
      writer: openAiWriter,
      policy,
      policyFor,
    };
  }

  async serve(input: FaceInput, res: ServerResponse): Promise<void> {
    if (input.route.action === 'list_models') this.listModels(input, res);
    else this.getModel(input.params.id, res);
  }

  private listModels(input: FaceInput, res: ServerResponse): void {
    const query = new URLSearchParams(input.query);
    const single = (name: string): string | undefined => {
      const values = query.getAll(name);
      if (!values.length) return undefined;
      const value = values[0];
      if (values.length > 1)
        throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, `${name} must be given once`, { param: name });
      return value;
    };
    const type = single('type');
    const method = single('method');
    const detailed = single('detailed');
    if (type && !(MODEL_TYPES as readonly string[]).includes(type))
      throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, `type must be one of ${MODEL_TYPES.join(', ')}`, {
        param: 'type',
      });
    if (method && !(MODEL_METHODS as readonly string[]).includes(method))
      throw new GatewayException(
        GatewayErrorCode.INVALID_REQUEST,
        `method must be one of ${MODEL_METHODS.join(', ')}`,
        { param: 'method' },
      );
    if (detailed !== undefined && detailed !== 'true' && detailed !== 'false')
      throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'detailed must be true or false', {
        param: 'detailed',
      });
    const models = this.catalog.list({ type, method, capability: single('capability') });
    if (detailed === 'false')
      writeJson(
        res,
        200,
        models.map((model) => model.id),
      );
    else writeJson(res, 200, { object: 'list', data: models.map((model) => this.catalog.toEntry(model, this.health)) });
  }

  private getModel(id: string, res: ServerResponse): void {
    const model = this.catalog.find(id);
    if (!model)
      throw new GatewayException(GatewayErrorCode.MODEL_NOT_FOUND, `The model ${id} does not exist`, {
        param: 'model',
      });
    writeJson(res, 200, this.catalog.toEntry(model, this.health));
  }
}
