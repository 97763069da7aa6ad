/** The notifications module's face: receipts and budget alerts by mail (docs/mail.md). */
export { NotificationsModule } from './notifications.module';
export { NotificationsService } from './notifications.service';
