import { useId, useState } from 'react';

import { CodeBlock } from '../../../components/ui/code-block';
import { TabPanel, Tabs } from '../../../components/ui/tabs';
import { gatewayBaseUrl } from '../../../lib/gateway';
import { curlSnippet, javascriptSnippet, KEY_VARIABLE, pythonSnippet } from '../lib/snippets';
import type { PlaygroundRequest } from '../lib/snippets';

const LANGUAGES = [
  { id: 'curl', label: 'curl' },
  { id: 'javascript', label: 'JavaScript' },
  { id: 'python', label: 'Python' },
] as const;
type Language = (typeof LANGUAGES)[number]['id'];

/** The request as the form now stands, as curl and as code for the official openai SDKs. */
export function RequestCode({ request }: { request: PlaygroundRequest }) {
  const idPrefix = useId().replace(/:/g, '');
  const [language, setLanguage] = useState<Language>('curl');
  const baseUrl = gatewayBaseUrl();
  const code =
    language === 'curl'
      ? curlSnippet(baseUrl, request)
      : language === 'javascript'
        ? javascriptSnippet(baseUrl, request)
        : pythonSnippet(baseUrl, request);

  return (
    <section className="stack request-code" aria-labelledby={`${idPrefix}-heading`}>
      <h3 id={`${idPrefix}-heading`} className="subheading">
        This request as code
      </h3>
      <p className="field-hint">
        Set <code className="mono">{KEY_VARIABLE}</code> to one of your API keys first. The JavaScript and Python code
        uses the official <code className="mono">openai</code> package.
      </p>
      <Tabs label="Language" idPrefix={idPrefix} tabs={LANGUAGES} selected={language} onSelect={setLanguage} />
      <TabPanel idPrefix={idPrefix} id={language}>
        <CodeBlock code={code} copyLabel={`${LANGUAGES.find((item) => item.id === language)?.label} code`} />
      </TabPanel>
    </section>
  );
}
