// The module-faces rule on the imports it must refuse and those it must let through (`npm run lint` runs this
// first, with `node --test`).
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { moduleFaces } from './module-faces.mjs';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.afterAll = after;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const api = (file) => path.join(ROOT, 'apps/api', file);
const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
});

tester.run('switchyard/module-faces', moduleFaces, {
  valid: [
    {
      name: 'another module through its folder',
      filename: api('src/modules/oauth/oauth.service.ts'),
      code: "import { ClientsService } from '../clients';",
    },
    {
      name: 'another module through its index',
      filename: api('src/modules/oauth/oauth.service.ts'),
      code: "import { ClientsService } from '../clients/index';",
    },
    {
      name: "a module's own files",
      filename: api('src/modules/usage/usage.service.ts'),
      code: "import { ReservationsRepository } from './ledger/reservations.repository';",
    },
    {
      name: 'its own files from a subfolder',
      filename: api('src/modules/usage/ledger/ledger.service.ts'),
      code: "import { UsageException } from '../usage.exception';",
    },
    {
      name: 'the app through a face',
      filename: api('src/app.ts'),
      code: "import { GatewayService } from './modules/proxy';",
    },
    {
      name: 'a test through a face',
      filename: api('test/crash.integration-spec.ts'),
      code: "import { ReservationService } from '../src/modules/usage';",
    },
    {
      name: 'outside the modules',
      filename: api('src/modules/keys/keys.service.ts'),
      code: "import { sha256 } from '../../common/crypto';",
    },
    {
      name: 'packages',
      filename: api('src/modules/keys/keys.service.ts'),
      code: "import { Injectable } from '@nestjs/common';",
    },
    {
      name: 'an internal the config allows',
      filename: api('src/database/entities.ts'),
      code: "import { keysEntities } from '../modules/keys/entities';",
      options: [{ allow: ['*/entities'] }],
    },
  ],
  invalid: [
    {
      name: "another module's service",
      filename: api('src/modules/oauth/oauth.service.ts'),
      code: "import { ClientsService } from '../clients/clients.service';",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'an entity type',
      filename: api('src/modules/oauth/oauth.service.ts'),
      code: "import type { OAuthClientEntity } from '../clients/entities/oauth-client.entity';",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'deep, from the app',
      filename: api('src/cli/admin.ts'),
      code: "import { ReconciliationService } from '../modules/usage/ledger/reconciliation';",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'deep, from common',
      filename: api('src/common/x/y.ts'),
      code: "import { x } from '../../modules/usage/ledger/x';",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'from a test',
      filename: api('test/support/usage-record.ts'),
      code: "import type { UsageRecordInput } from '../../src/modules/usage/usage-recorder';",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'export from',
      filename: api('src/modules/spaces/index.ts'),
      code: "export { AccountsService } from '../accounts/accounts.service';",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'export all',
      filename: api('src/modules/spaces/x.ts'),
      code: "export * from '../keys/keys.repository';",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'import()',
      filename: api('src/modules/spaces/x.ts'),
      code: "void import('../keys/keys.service');",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'import() type',
      filename: api('src/modules/spaces/x.ts'),
      code: "type K = import('../keys/keys.service').KeysService;",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'jest.mock',
      filename: api('src/modules/spaces/x.spec.ts'),
      code: "jest.mock('../keys/keys.service');",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'require',
      filename: api('src/modules/spaces/x.ts'),
      code: "const k = require('../keys/keys.service');",
      errors: [{ messageId: 'internal' }],
    },
    {
      name: 'an internal the config allows elsewhere only',
      filename: api('src/database/entities.ts'),
      code: "import { ApiKeyEntity } from '../modules/keys/entities/api-key.entity';",
      options: [{ allow: ['*/entities'] }],
      errors: [{ messageId: 'internal' }],
    },
  ],
});
