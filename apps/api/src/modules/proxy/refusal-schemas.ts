import type { OpenAPIObject } from '@nestjs/swagger';

type SchemaObject = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string];

/** The money refusals' fields (docs/budgets.md, "Which limit refused a call"), on both faces. */
const REFUSAL_FIELDS: Record<string, SchemaObject> = {
  code: { type: 'string', enum: ['budget_exhausted', 'spend_limit_exceeded'] },
  limit: {
    type: 'string',
    enum: ['account', 'per_request', 'daily', 'weekly', 'monthly', 'total'],
    description: '`account` for budget_exhausted',
  },
  scope: { type: 'string', enum: ['key', 'app'], description: 'spend_limit_exceeded: whose limit' },
  keyId: { type: 'string', nullable: true },
  clientId: { type: 'string', nullable: true },
  limitAmount: { type: 'number', description: 'The limit, in currency units' },
  spent: {
    type: 'number',
    nullable: true,
    description: 'Spent in the limit’s window (settled plus held by calls in flight); null for per_request',
  },
  needed: { type: 'number', description: 'The least this call needs (its input and one output token)' },
  resetsAt: {
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When a daily, weekly or monthly window starts again (UTC)',
  },
  remainingBudget: { type: 'number', description: 'The account’s balance' },
  topUpUrl: { type: 'string', description: 'budget_exhausted: where to add funds' },
  settingsUrl: { type: 'string', description: 'spend_limit_exceeded: where the limit is changed' },
};

export const REFUSAL_SCHEMAS: Record<string, SchemaObject> = {
  GatewayRefusal: {
    type: 'object',
    description: 'A 403 in OpenAI’s shape; the money refusals carry the figures beside message, type and code',
    properties: {
      error: {
        type: 'object',
        required: ['message', 'type', 'code'],
        properties: {
          message: { type: 'string' },
          type: { type: 'string' },
          param: { nullable: true },
          ...REFUSAL_FIELDS,
        },
      },
    },
  },
  AnthropicRefusal: {
    type: 'object',
    description: 'A 403 in Anthropic’s shape; the money refusals carry the gateway’s code and figures inside error',
    properties: {
      type: { type: 'string', enum: ['error'] },
      error: {
        type: 'object',
        required: ['type', 'message'],
        properties: { type: { type: 'string' }, message: { type: 'string' }, ...REFUSAL_FIELDS },
      },
      request_id: { type: 'string' },
    },
  },
};
