import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { APP_VERSION } from '../../version';

/**
 * The OpenAPI document, generated from the code: routes and security from the controllers' decorators, request
 * bodies from the shared DTO classes' class-validator rules (so the lib needs no Swagger decorators).
 */
export function buildOpenApiDocument(app: INestApplication, publicUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Switchyard')
    .setDescription(
      'OpenAI-compatible AI gateway with OAuth2 apps, API keys and budgets. Management routes answer in the ' +
        'envelope {success, message?, data, timestamp}; errors as {success: false, message, error: {code, details?}, timestamp}.',
    )
    .setVersion(APP_VERSION)
    .addServer(publicUrl)
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'A session token from /api/v1/auth/login' },
      'session',
    )
    .addCookieAuth('sy_session', { type: 'apiKey', in: 'cookie', name: 'sy_session' }, 'session-cookie')
    .addSecurity('oauth', {
      type: 'oauth2',
      description:
        'An app acting for a user: authorization code with PKCE (S256); send X-Service-OAuth-Client-Id beside the token',
      flows: {
        authorizationCode: {
          authorizationUrl: `${publicUrl}/oauth2/authorize`,
          tokenUrl: `${publicUrl}/oauth2/token`,
          refreshUrl: `${publicUrl}/oauth2/token`,
          scopes: {
            'api:access': 'Call AI models for the user, paid from their budget',
            'profile:read': "Read the user's name, email and handle",
          },
        },
      },
    })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  const schemas = validationMetadatasToSchemas({
    refPointerPrefix: '#/components/schemas/',
    // The shared DTOs' own decimals check (MaxDecimals) adds nothing to the schema (its number type stays).
    additionalConverters: { maxDecimals: {} },
  });
  document.components ??= {};
  document.components.schemas = {
    ...document.components.schemas,
    ...(schemas as OpenAPIObject['components'] & object),
  };
  return document;
}
