import { CodeBlock } from '../../../components/ui/code-block';
import { DocSection } from './doc-section';

/**
 * Gemini's generateContent API on the gateway, and the Gemini CLI (docs/gemini.md): Google's Gen AI SDK and the CLI,
 * unchanged, in front of every chat model. The CLI recipe is the one tools/agents/run.mjs runs in CI.
 */
export function GeminiGuide({ origin }: { origin: string }) {
  return (
    <DocSection id="gemini" title="Gemini CLI and Google's Gen AI SDK">
      <p>
        The gateway also speaks Gemini&apos;s API, in front of every chat model of the catalog:{' '}
        <code className="mono">models/{'{model}'}:generateContent</code>,{' '}
        <code className="mono">:streamGenerateContent?alt=sse</code> (function calls and their responses too) and{' '}
        <code className="mono">:countTokens</code> (free), under <code className="mono">/v1</code> and{' '}
        <code className="mono">/v1beta</code>, where Google&apos;s SDKs call them given a base URL. Send your key in{' '}
        <code className="mono">x-goog-api-key</code> (or as a bearer token). Errors come in Google&apos;s shape; a budget
        that cannot cover the call is 403 <code className="mono">PERMISSION_DENIED</code>. Tools Google would run on
        your behalf (Search grounding, code execution, URL context) are refused with 400, naming the field.
      </p>
      <CodeBlock
        caption="Gemini CLI (with ~/.gemini/settings.json choosing the API key sign-in)"
        code={`export GOOGLE_GEMINI_BASE_URL=${origin}
export GEMINI_API_KEY=sy-...
gemini -m demo-chat -p "Say hello to Switchyard"   # a chat model id from the model list`}
      />
      <CodeBlock
        caption="JavaScript (npm install @google/genai)"
        code={`import { GoogleGenAI } from '@google/genai';

const ai = new GoogleGenAI({ apiKey: process.env.SWITCHYARD_API_KEY, httpOptions: { baseUrl: '${origin}' } });

const response = await ai.models.generateContent({ model: 'demo-chat', contents: 'Hello!' });
console.log(response.text);`}
      />
    </DocSection>
  );
}
