import { mailBody, type MailMessage } from '../mail';

const FOOTER = 'You get this mail because of your account on Switchyard. If you did not ask for it, ignore it.';

export function passwordResetMail(to: string, link: string, ttlMinutes: number): MailMessage {
  return {
    kind: 'password_reset',
    to,
    subject: 'Reset your Switchyard password',
    ...mailBody({
      paragraphs: [
        'Someone, probably you, asked to reset the password of the Switchyard account that uses this address.',
        `The link below works once, for ${ttlMinutes} minutes. It signs out every session of the account.`,
      ],
      action: { label: 'Choose a new password', url: link },
      footer: `${FOOTER} Your password stays as it is.`,
    }),
  };
}

export function verifyEmailMail(to: string, link: string): MailMessage {
  return {
    kind: 'verify_email',
    to,
    subject: 'Verify your address for Switchyard',
    ...mailBody({
      paragraphs: [
        'Welcome to Switchyard. Please confirm that this address is yours: it is where password resets, receipts and budget alerts go.',
        'The link below works once, for 7 days.',
      ],
      action: { label: 'Verify this address', url: link },
      footer: FOOTER,
    }),
  };
}
