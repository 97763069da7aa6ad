// The import-layers rule on the imports it must refuse and those it must let through (`npm run lint` runs this
// first, with `node --test`).
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { importLayers } from './import-layers.mjs';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.afterAll = after;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dash = (file) => path.join(ROOT, 'apps/dashboard/src', file);
const options = [
  {
    root: 'apps/dashboard/src',
    siblings: ['features'],
    forbid: [
      { from: 'lib', to: ['features', 'app'] },
      { from: 'components', to: ['features', 'app'] },
    ],
  },
];
const proxy = (file) => path.join(ROOT, 'apps/api/src/modules/proxy', file);
const proxyOptions = [
  {
    root: 'apps/api/src/modules/proxy',
    siblings: ['faces', 'providers'],
    forbid: [
      { from: 'call', to: ['billing', 'faces', 'providers', 'gateway.service'] },
      { from: 'billing', to: ['faces', 'providers'] },
    ],
  },
];
const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
});

tester.run('switchyard/import-layers', importLayers, {
  valid: [
    {
      name: "a feature's own files",
      filename: dash('features/keys/components/key-list.tsx'),
      code: "import { useKeys } from '../api/list-keys';",
      options,
    },
    {
      name: 'a feature using lib and components',
      filename: dash('features/keys/components/key-list.tsx'),
      code: "import { http } from '../../../lib/http'; import { Button } from '../../../components/ui/button';",
      options,
    },
    {
      name: 'a route composing two features',
      filename: dash('app/routes/usage-route.tsx'),
      code: "import { useConsents } from '../../features/consents/api/list-consents'; import { UsageAnalytics } from '../../features/usage/components/usage-analytics';",
      options,
    },
    {
      name: 'lib using lib',
      filename: dash('lib/http.ts'),
      code: "import { env } from '../config/env'; import { money } from './money';",
      options,
    },
    {
      name: 'packages are not paths',
      filename: dash('lib/http.ts'),
      code: "import { useQuery } from '@tanstack/react-query';",
      options,
    },
    {
      name: 'a provider using the file its folder shares',
      filename: proxy('providers/gemini/gemini.adapter.ts'),
      code: "import { TranslatedAdapter } from '../translated.adapter';",
      options: proxyOptions,
    },
    {
      name: 'a face using the contract the faces share, and a lower layer',
      filename: proxy('faces/anthropic/anthropic.face.ts'),
      code: "import type { Face } from '../face'; import { Call } from '../../call/call';",
      options: proxyOptions,
    },
    {
      name: 'billing using the call',
      filename: proxy('billing/call-billing.ts'),
      code: "import type { Call } from '../call/call';",
      options: proxyOptions,
    },
  ],
  invalid: [
    {
      name: 'a face importing another face',
      filename: proxy('faces/gemini/gemini.face.ts'),
      code: "import { anthropicError } from '../anthropic/anthropic-errors';",
      options: proxyOptions,
      errors: [{ messageId: 'sibling' }],
    },
    {
      name: 'the faces’ shared file importing one face',
      filename: proxy('faces/face.ts'),
      code: "import type { OpenAiFace } from './openai/openai.face';",
      options: proxyOptions,
      errors: [{ messageId: 'sibling' }],
    },
    {
      name: 'billing importing a face',
      filename: proxy('billing/call-billing.ts'),
      code: "import { fitThinking } from '../faces/anthropic/messages-request';",
      options: proxyOptions,
      errors: [{ messageId: 'forbidden' }],
    },
    {
      name: 'the call importing a file of the module’s root above it',
      filename: proxy('call/call.ts'),
      code: "import type { GatewayService } from '../gateway.service';",
      options: proxyOptions,
      errors: [{ messageId: 'forbidden' }],
    },
    {
      name: 'a feature importing another feature',
      filename: dash('features/usage/components/usage-analytics.tsx'),
      code: "import { useConsents } from '../../consents/api/list-consents';",
      options,
      errors: [{ messageId: 'sibling' }],
    },
    {
      name: 'a type import across features',
      filename: dash('features/billing/api/get-ledger.ts'),
      code: "export type { Key } from '../../keys/api/list-keys';",
      options,
      errors: [{ messageId: 'sibling' }],
    },
    {
      name: 'lib importing a feature',
      filename: dash('lib/money.ts'),
      code: "import { x } from '../features/billing/lib/x';",
      options,
      errors: [{ messageId: 'forbidden' }],
    },
    {
      name: 'components importing a feature',
      filename: dash('components/ui/button.tsx'),
      code: "const m = import('../../features/keys/api/list-keys');",
      options,
      errors: [{ messageId: 'forbidden' }],
    },
    {
      name: 'components importing the app shell',
      filename: dash('components/ui/button.tsx'),
      code: "import { routes } from '../../app/router';",
      options,
      errors: [{ messageId: 'forbidden' }],
    },
  ],
});
