import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { parseMail } from '../../../test/support/fake-smtp';
import { testConfig } from '../../config/config';
import { mailBody } from './mail-body';
import { MailService, maskAddress } from './mail.service';

describe('MailService without SMTP_URL', () => {
  it('writes the mail to DATA_DIR/mail as an .eml readable by the service only, and logs where without the body', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sy-mail-'));
    const service = new MailService(testConfig({ dataDir, publicUrl: 'https://gw.example.com', smtpUrl: null }));
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      expect(service.from).toBe('Switchyard <no-reply@gw.example.com>');
      const link = 'https://gw.example.com/reset-password#token=syr_secret123';
      const result = await service.send({
        kind: 'password_reset',
        to: 'ada@example.com',
        subject: 'Reset your Switchyard password',
        ...mailBody({ paragraphs: ['Hello <there> & welcome'], action: { label: 'Reset', url: link } }),
      });
      const files = readdirSync(join(dataDir, 'mail'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/-password_reset-[0-9a-f]{6}\.eml$/);
      expect(result.file).toBe(join(dataDir, 'mail', files[0]));
      expect(statSync(result.file!).mode & 0o777).toBe(0o600);
      const eml = readFileSync(result.file!, 'utf8');
      expect(eml).toMatch(/^From: Switchyard <no-reply@gw\.example\.com>$/m);
      expect(eml).toMatch(/^To: ada@example\.com$/m);
      expect(eml).toMatch(/^X-Switchyard-Mail: password_reset$/m);
      expect(eml).toContain('syr_secret123');
      const parsed = parseMail(eml);
      expect(parsed.text).toContain('Hello <there> & welcome');
      expect(parsed.html).toContain('<p>Hello &lt;there&gt; &amp; welcome</p>');
      expect(parsed.link).toBe(link);
      const lines = log.mock.calls.map((call) => String(call[0]));
      expect(lines).toEqual([`password_reset mail to a***@example.com written to ${result.file} (SMTP_URL is unset)`]);
    } finally {
      log.mockRestore();
    }
  });

  it('masks addresses in logs', () => {
    expect(maskAddress('ada@example.com')).toBe('a***@example.com');
    expect(maskAddress('nobody')).toBe('***');
  });
});
