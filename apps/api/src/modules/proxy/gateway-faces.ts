import { ANTHROPIC_FACE } from './faces/anthropic/anthropic.definition';
import { AnthropicFace } from './faces/anthropic/anthropic.face';
import type { Face, FaceDefinition } from './faces/face';
import { GEMINI_FACE } from './faces/gemini/gemini.definition';
import { GeminiFace } from './faces/gemini/gemini.face';
import { OPENAI_FACE } from './faces/openai/openai.definition';
import { OpenAiFace } from './faces/openai/openai.face';

/**
 * Every inbound face of the gateway (docs/architecture.md, "The call pipeline"): its definition (routes, prefixes,
 * error shape, OpenAPI paths: read before the app starts, by the allowlist and the OpenAPI document) and its
 * service. A new face is its folder (faces/<name>/) and one line here.
 */
export const FACES: { definition: FaceDefinition; service: new (...args: never[]) => Face }[] = [
  { definition: OPENAI_FACE, service: OpenAiFace },
  { definition: ANTHROPIC_FACE, service: AnthropicFace },
  { definition: GEMINI_FACE, service: GeminiFace },
];
