import type { OpenAPIObject } from '@nestjs/swagger';
import { FACES } from './gateway-faces';
import { REFUSAL_SCHEMAS } from './refusal-schemas';

/**
 * The gateway's routes in the OpenAPI document, each face's from its own definition (they are not Nest
 * controllers): OpenAI's bodies are the OpenAI API's (see https://github.com/openai/openai-openapi for their
 * schemas), the other faces' their providers' own.
 */
export function addGatewayPaths(document: OpenAPIObject): void {
  document.components ??= {};
  // The money refusals' bodies (budget_exhausted, spend_limit_exceeded), referenced by each face's 403.
  document.components.schemas = { ...document.components.schemas, ...REFUSAL_SCHEMAS };
  for (const { definition } of FACES)
    document.components.securitySchemes = {
      ...document.components.securitySchemes,
      ...(definition.securitySchemes as NonNullable<OpenAPIObject['components']>['securitySchemes']),
    };
  for (const { definition } of FACES)
    for (const route of definition.routes) {
      const { path, method, operation } = definition.openApi(route);
      document.paths[path] = { ...document.paths[path], [method]: operation };
    }
}
