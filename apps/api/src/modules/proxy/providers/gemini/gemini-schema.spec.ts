import { toGeminiParameters, toGeminiSchema } from './gemini-schema';

describe('toGeminiSchema', () => {
  it('strips keys Gemini rejects, recursively, but keeps property names that look like keywords', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'urn:x',
      type: 'object',
      additionalProperties: false,
      properties: {
        additionalProperties: { type: 'string', description: 'a property with an unlucky name' },
        nested: {
          type: 'object',
          additionalProperties: { type: 'string' },
          properties: {
            list: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                properties: { a: { type: 'integer', examples: [1] } },
              },
            },
          },
        },
      },
      required: ['nested', 'missing'],
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: 'object',
      properties: {
        additionalProperties: { type: 'string', description: 'a property with an unlucky name' },
        nested: {
          type: 'object',
          properties: { list: { type: 'array', items: { type: 'object', properties: { a: { type: 'integer' } } } } },
        },
      },
      required: ['nested'],
    });
    // the input is left untouched
    expect(schema.additionalProperties).toBe(false);
  });

  it('turns type lists and null alternatives into nullable, and oneOf into anyOf', () => {
    expect(toGeminiSchema({ type: ['string', 'null'] })).toEqual({ type: 'string', nullable: true });
    expect(toGeminiSchema({ anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'count' })).toEqual({
      type: 'integer',
      nullable: true,
      description: 'count',
    });
    expect(toGeminiSchema({ oneOf: [{ type: 'string' }, { type: 'number' }] })).toEqual({
      anyOf: [{ type: 'string' }, { type: 'number' }],
    });
  });

  it('inlines local $refs and cuts recursion', () => {
    const schema = {
      type: 'object',
      properties: { home: { $ref: '#/$defs/Address' }, tree: { $ref: '#/definitions/Node' } },
      $defs: { Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      definitions: { Node: { type: 'object', properties: { child: { $ref: '#/definitions/Node' } } } },
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: 'object',
      properties: {
        home: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        tree: { type: 'object', properties: { child: { type: 'object' } } },
      },
    });
    expect(toGeminiSchema({ $ref: '#/$defs/Missing' })).toEqual({ type: 'object' });
    const recursive = {
      $ref: '#/definitions/Node',
      definitions: { Node: { type: 'object', properties: { child: { $ref: '#/definitions/Node' } } } },
    };
    expect(toGeminiSchema(recursive)).toEqual({ type: 'object', properties: { child: { type: 'object' } } });
  });

  it('merges allOf, maps const to enum, keeps string enums and supported formats only', () => {
    expect(
      toGeminiSchema({
        allOf: [
          { type: 'object', properties: { a: { type: 'string', format: 'date-time' } }, required: ['a'] },
          { properties: { b: { type: 'string', format: 'uri' } }, required: ['b'] },
        ],
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string', format: 'date-time' }, b: { type: 'string' } },
      required: ['a', 'b'],
    });
    expect(toGeminiSchema({ const: 'fixed' })).toEqual({ enum: ['fixed'], type: 'string' });
    expect(toGeminiSchema({ type: 'integer', enum: [1, 2], format: 'int32' })).toEqual({
      type: 'integer',
      format: 'int32',
      description: 'Allowed values: 1, 2.',
    });
  });
});

describe('toGeminiParameters', () => {
  it('leaves out the parameters of a function that takes none', () => {
    expect(toGeminiParameters(undefined)).toBeUndefined();
    expect(toGeminiParameters({ type: 'object', properties: {}, additionalProperties: false })).toBeUndefined();
    expect(toGeminiParameters({ type: 'object', properties: { q: { type: 'string' } } })).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
    });
  });
});
