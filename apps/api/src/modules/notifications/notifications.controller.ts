import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { NotificationSettings } from '@switchyard/shared-dto';
import { NotificationSettingsDto } from '@switchyard/shared-dto/validation';
import { Access, CurrentUser } from '../../common/auth/access.decorator';
import type { SessionPrincipal } from '../../common/auth/principal';
import { Envelope, envelope } from '../../common/http/envelope';
import { NotificationsService } from './notifications.service';

/** The budget alerts' thresholds, on the Settings page (docs/mail.md, "Alerts"). */
@ApiTags('accounts')
@Controller('api/v1/notifications')
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  @Get('settings')
  @Access()
  @ApiOperation({ summary: 'The budget alerts’ thresholds (defaults: below 1.00, at 80% of a limit)' })
  async settings(@CurrentUser() principal: SessionPrincipal): Promise<Envelope<NotificationSettings>> {
    return envelope(await this.notifications.settings(principal.userId));
  }

  @Put('settings')
  @Access()
  @ApiOperation({
    summary:
      'Set the low-balance threshold and the share of a key’s or app’s limit that mails an alert; null turns one off',
  })
  async save(
    @CurrentUser() principal: SessionPrincipal,
    @Body() body: NotificationSettingsDto,
  ): Promise<Envelope<NotificationSettings>> {
    return envelope(await this.notifications.saveSettings(principal.userId, body), 'Alerts saved');
  }
}
