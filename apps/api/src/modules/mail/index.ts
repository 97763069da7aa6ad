/** The mail module's face: the transport and the message shape (docs/mail.md). */
export { MailModule } from './mail.module';
export { MailService, maskAddress, type MailKind, type MailMessage, type MailResult } from './mail.service';
export { mailBody, escapeHtml, type MailBody } from './mail-body';
