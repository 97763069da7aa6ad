import { Injectable } from '@nestjs/common';
import { CatalogService } from '../proxy';
import { checkPage } from './page-check';
import { editMessages, generateMessages, type AppModels, type ChatMessage } from './prompts';
import { SpacesGatewayClient } from './spaces-gateway.client';
import { ClaimedJob, FinishedPage, SpacesRepository } from './spaces.repository';

export type WriteOutcome =
  | { kind: 'page'; page: FinishedPage }
  | { kind: 'failed'; reason: string }
  /** This instance is shutting down (its gateway refused or cut the call): the job goes back to the queue. */
  | { kind: 'interrupted' };

const MAX_REASON_LENGTH = 1000;

/**
 * Has a model write (or revise) an app's page: the job's models are tried in order through the gateway, each a
 * call on the owner's budget, until one answers with a page that passes the check (page-check.ts). A budget
 * that is exhausted ends the job at once; so does a shutdown, which hands the job back to the queue.
 */
@Injectable()
export class SpacePageWriter {
  constructor(
    private readonly gateway: SpacesGatewayClient,
    private readonly repository: SpacesRepository,
    private readonly catalog: CatalogService,
  ) {}

  /** The models a page may call through the kit: the catalog's first chat and image models. */
  private appModels(): AppModels {
    return {
      chat: this.catalog.list({ type: 'text', method: 'chat_completions' })[0]?.id ?? null,
      image: this.catalog.list({ type: 'image', method: 'image_generation' })[0]?.id ?? null,
    };
  }

  async write(job: ClaimedJob, signal: AbortSignal): Promise<WriteOutcome> {
    let messages: ChatMessage[];
    if (job.kind === 'edit') {
      const current = job.baseVersion === null ? null : await this.repository.pageOf(job.appId, job.baseVersion);
      if (current === null) return { kind: 'failed', reason: 'The page to revise is gone' };
      messages = editMessages(current, job.prompt, this.appModels());
    } else {
      messages = generateMessages(job.prompt, this.appModels());
    }
    const failures: string[] = [];
    for (const [index, model] of job.models.entries()) {
      // One id per call: its usage record and ledger entry carry it, and a retried job never reuses one.
      const requestId = `spaces-${job.id.replace(/-/g, '')}-${job.attempts}-${index + 1}`;
      let outcome;
      try {
        outcome = await this.gateway.chat(job.userId, model, messages, requestId, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        // The gateway cut the call: this instance is closing.
        return { kind: 'interrupted' };
      }
      if (!outcome.ok) {
        const code = outcome.code.toLowerCase();
        if (code === 'shutting_down') return { kind: 'interrupted' };
        if (code === 'budget_exhausted')
          return {
            kind: 'failed',
            reason: bounded(`Your budget does not cover a page from ${model}: ${outcome.message}`),
          };
        failures.push(`${model}: ${outcome.message}`);
        continue;
      }
      const check = checkPage(outcome.text);
      if (!check.ok) {
        failures.push(
          `${model}: ${check.reason}${outcome.finishReason === 'length' ? ' (the answer reached its output limit)' : ''}`,
        );
        continue;
      }
      return { kind: 'page', page: { html: check.html, title: check.title, model, requestId: outcome.requestId } };
    }
    return { kind: 'failed', reason: bounded(failures.join('; ')) };
  }
}

function bounded(reason: string): string {
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 1)}…` : reason;
}
