import { emptyVerdict, type Json, NOT_BOUNDED, type PolicyVerdict, refused } from '../../policy/verdict';
import { field } from './gemini-request';

/** Tools Google runs on its side, billed to the provider account: refused whatever the model. */
const SERVER_TOOLS: Record<string, string> = {
  googleSearch: 'Google Search grounding is billed per query',
  googleSearchRetrieval: 'Google Search grounding is billed per query',
  enterpriseWebSearch: 'web search is billed per query',
  googleMaps: 'Google Maps grounding is billed per query',
  codeExecution: 'code execution runs on the provider’s account',
  urlContext: 'the provider fetches the URLs',
  fileSearch: 'file search reads stores on the provider’s account',
  retrieval: 'retrieval reads stores on the provider’s account',
  computerUse: 'computer use is served by Google’s own models only',
  mcpServers: 'MCP servers are called by the provider',
};

/**
 * The Gemini face's request policy (docs/gemini.md, "What is refused"), before anything is reserved or forwarded:
 * what Google would fetch, run or charge on the caller's behalf, or read from the provider account, is refused by
 * name (400 INVALID_ARGUMENT); function declarations, the caller's own tools, pass. Its translation then meets the
 * gateway's own policy like any chat completion.
 */
export function geminiPolicy(json: Json): PolicyVerdict {
  if (field(json, 'cachedContent') !== undefined && field(json, 'cachedContent') !== null)
    throw refused('cachedContent', `a cached content lives on the provider account: ${NOT_BOUNDED}`);
  const tools = json.tools;
  if (Array.isArray(tools))
    tools.forEach((tool: unknown, at) => {
      if (typeof tool !== 'object' || tool === null) return;
      for (const key of Object.keys(tool)) {
        const name = key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
        if (name === 'functionDeclarations') continue;
        throw refused(`tools[${at}].${name}`, `${SERVER_TOOLS[name] ?? 'a tool Google runs itself'}: ${NOT_BOUNDED}`);
      }
    });
  return emptyVerdict();
}
