import { filterOperations, readOperations } from './openapi';

const document = {
  openapi: '3.0.0',
  tags: [],
  paths: {
    '/api/v1/keys': {
      post: {
        operationId: 'KeysController_create',
        summary: 'Create an API key',
        tags: ['keys'],
        security: [{ session: [] }, { 'session-cookie': [] }],
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/KeyCreateDto' } } } },
        responses: { '401': { description: 'No session' } },
      },
      get: { summary: 'The caller’s keys', tags: ['keys'], security: [{ session: [] }], responses: {} },
    },
    '/v1/models': {
      get: {
        operationId: 'gateway_models',
        summary: 'List models',
        tags: ['gateway'],
        security: [{ gateway: [] }],
        parameters: [{ name: 'type', in: 'query', required: false, description: 'text, image, audio, embedding' }],
        responses: { '200': { description: 'The list' } },
      },
    },
    '/healthz': { get: { summary: 'Liveness', tags: ['health'], responses: { '200': { description: 'ok' } } } },
  },
  components: { schemas: { KeyCreateDto: { type: 'object', required: ['name'], properties: { limits: {}, name: {} } } } },
};

describe('reading /openapi.json', () => {
  it('groups operations by tag, preferred tags first, with security, parameters, body and answers', () => {
    const groups = readOperations(document, ['gateway']);
    expect(groups.map((group) => group.tag)).toEqual(['gateway', 'health', 'keys']);
    expect(groups[0].operations[0]).toEqual({
      id: 'gateway_models',
      method: 'GET',
      path: '/v1/models',
      summary: 'List models',
      description: '',
      security: ['gateway'],
      parameters: [{ name: 'type', in: 'query', required: false, description: 'text, image, audio, embedding' }],
      body: null,
      responses: [{ status: '200', description: 'The list' }],
    });
    expect(groups[1].operations[0].security).toEqual([]);
    const create = groups[2].operations[0];
    expect(create.method).toBe('POST');
    expect(create.security).toEqual(['session', 'session-cookie']);
    expect(create.body).toEqual({ contentType: 'application/json', fields: [{ name: 'name', required: true }, { name: 'limits', required: false }] });
  });

  it('answers nothing for a document that is not OpenAPI', () => {
    expect(readOperations(null)).toEqual([]);
    expect(readOperations({ paths: 'x' })).toEqual([]);
  });

  it('filters by method, path, summary or tag', () => {
    const groups = readOperations(document);
    expect(filterOperations(groups, 'models').map((group) => group.operations.map((operation) => operation.path))).toEqual([['/v1/models']]);
    expect(filterOperations(groups, 'post').flatMap((group) => group.operations.map((operation) => operation.id))).toEqual(['KeysController_create']);
    expect(filterOperations(groups, '')).toHaveLength(3);
  });
});
