import { gatewayPrefixOf, matchGatewayRoute } from './allowlist';

describe('the gateway allowlist', () => {
  it.each([
    ['POST', '/v1/chat/completions', 'chat_completions', 'shared'],
    ['POST', '/apikey/v1/embeddings', 'embeddings', 'apikey'],
    ['POST', '/oauth2/v1/images/generations', 'image_generation', 'oauth'],
    ['GET', '/v1/models', 'list_models', 'shared'],
    ['GET', '/v1/models/demo-chat', 'get_model', 'shared'],
    ['GET', '/v1/videos/video_123/content', 'video_content', 'shared'],
    ['POST', '/v1/videos/video_123/remix', 'video_remix', 'shared'],
  ])('serves %s %s', (method, path, action, prefix) => {
    expect(matchGatewayRoute(method, path)).toMatchObject({ route: { action }, prefix });
  });

  it('extracts path parameters after decoding once', () => {
    expect(matchGatewayRoute('GET', '/v1/models/gpt%2D4o')?.params).toEqual({ id: 'gpt-4o' });
  });

  it.each([
    ['GET', '/v1/chat/completions', 'stored completions'],
    ['DELETE', '/v1/models/demo-chat', 'deleting a model'],
    ['GET', '/v1/files', 'files'],
    ['POST', '/v1/files', 'files'],
    ['POST', '/v1/chat/completions/', 'a trailing slash'],
    ['POST', '/v1//chat/completions', 'a double slash'],
    ['POST', '/v1/./chat/completions', 'a dot segment'],
    ['POST', '/v1/x/../chat/completions', 'a dot-dot segment'],
    ['POST', '/v1/chat%2Fcompletions', 'an encoded slash'],
    ['POST', '/v1/chat%2fcompletions', 'a lower-case encoded slash'],
    ['POST', '/v1/%2E%2E/files', 'encoded dots'],
    ['POST', '/v1/chat%5Ccompletions', 'an encoded backslash'],
    ['POST', '/v1/chat\\completions', 'a backslash'],
    ['POST', '/v1/chat/%63ompletions', 'an encoded letter in a literal segment? no: decoded once it matches'],
    ['POST', '/v1/Chat/Completions', 'a case variant'],
    ['POST', '/V1/chat/completions', 'a case variant of the prefix'],
    ['GET', '/v1/models/a%252Fb', 'double encoding'],
    ['GET', '/v1/models/%ZZ', 'a broken escape'],
    ['GET', '/v1/videos/..%2Ffiles/content', 'traversal in a parameter'],
    ['PUT', '/v1/embeddings', 'another method on a listed path'],
  ])('refuses %s %s (%s)', (method, path, why) => {
    const match = matchGatewayRoute(method, path);
    if (why.startsWith('an encoded letter')) expect(match?.route.action).toBe('chat_completions');
    else expect(match).toBeNull();
  });

  it('claims every letter case of the prefixes, so variants are refused rather than 404', () => {
    expect(gatewayPrefixOf('/V1/chat/completions')).toBe('/v1');
    expect(gatewayPrefixOf('/ApiKey/v1/x')).toBe('/apikey/v1');
    expect(gatewayPrefixOf('/v1beta/models')).toBeNull();
    expect(gatewayPrefixOf('/api/v1/auth/me')).toBeNull();
  });
});
