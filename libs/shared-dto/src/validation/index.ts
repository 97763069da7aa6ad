// Decorated request DTOs (class-validator). Imported by the API's global ValidationPipe and read by the OpenAPI
// document. Each implements its request interface from the browser entry (which is what the dashboard imports),
// and request-shapes.spec.ts checks that each declares exactly that interface's fields.
export * from './auth.dto';
export * from './keys.dto';
export * from './usage.dto';
export * from './oauth.dto';
export * from './payments.dto';
export * from './giftcards.dto';
export * from './spaces.dto';
export * from './admin.dto';
export * from './sponsor.dto';
