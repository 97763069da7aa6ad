// Decorated request DTOs (class-validator). Imported by the API's global ValidationPipe; the dashboard may import
// them as types only.
export * from './auth.dto';
export * from './keys.dto';
export * from './usage.dto';
export * from './oauth.dto';
export * from './payments.dto';
export * from './giftcards.dto';
export * from './spaces.dto';
