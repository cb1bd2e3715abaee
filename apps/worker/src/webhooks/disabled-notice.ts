import { findWebhookOwner } from '@webpush/db';
import type { Transporter } from 'nodemailer';
import type { WorkerContext } from '../context.js';

export interface WebhookDisabledNotice {
  /**
   * E-mails the app's owner that its webhook was disabled, in the background: a slow mail server
   * holds no delivery slot. Failures are logged, never thrown.
   */
  send(appId: string, lastError: string): void;
  /** Waits for the e-mails under way, then closes the SMTP connection. */
  close(): Promise<void>;
}

/** WEBHOOK_DISABLE_AFTER_MS in words: days, or hours when shorter than a day. */
function period(language: 'ja' | 'en', ms: number): string {
  const round = (value: number) => String(Math.round(value * 10) / 10);
  if (ms >= 86_400_000) return language === 'en' ? `${round(ms / 86_400_000)} days` : `${round(ms / 86_400_000)} 日間`;
  return language === 'en' ? `${round(ms / 3_600_000)} hours` : `${round(ms / 3_600_000)} 時間`;
}

function message(language: 'ja' | 'en', appName: string, lastError: string, link: string, disableAfterMs: number) {
  const span = period(language, disableAfterMs);
  if (language === 'en') {
    return {
      subject: `Webhook deliveries of "${appName}" are disabled`,
      text:
        `Every webhook delivery of the app "${appName}" has failed for ${span} (last error: ${lastError}), ` +
        'so deliveries are now disabled. Events are kept, pending, and are sent once you resume deliveries.\n\n' +
        `Fix the receiver, then press "Resume deliveries" on the app's settings page:\n${link}\n`,
    };
  }
  return {
    subject: `「${appName}」の Webhook 配信を停止しました`,
    text:
      `アプリ「${appName}」の Webhook 配信が ${span}すべて失敗したため（最後のエラー: ${lastError}）、配信を停止しました。` +
      'イベントは保留のまま保持され、配信を再開すると送信されます。\n\n' +
      `受信側を修正してから、アプリの設定ページで「配信を再開」を押してください:\n${link}\n`,
  };
}

/**
 * The notice that a webhook was disabled: an e-mail to the app's owner through SMTP_URL, or, without
 * it (development), a log line, as the API does for account e-mails. The dashboard shows it too.
 *
 * nodemailer is loaded with the first notice, not with the worker: imported up front it added
 * ~10 MB to the resident memory of every worker for an e-mail most never send.
 */
export function createWebhookDisabledNotice(context: WorkerContext): WebhookDisabledNotice {
  const { config, db, log } = context;
  const { smtpUrl } = config.mail;
  let transport: Promise<Transporter> | null = null;
  const transportFor = (url: string) => {
    transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url));
    return transport;
  };
  const pending = new Set<Promise<void>>();
  async function sendNow(appId: string, lastError: string): Promise<void> {
    try {
      const owner = await findWebhookOwner(db, appId);
      if (!owner) return;
      const link = `${config.publicUrl.replace(/\/$/, '')}/apps/${appId}/settings`;
      const mail = {
        to: owner.email,
        ...message(owner.language, owner.appName, lastError, link, config.webhooks.disableAfterMs),
      };
      if (!smtpUrl) {
        log.info({ appId, mail }, 'e-mail (not sent: no SMTP_URL)');
        return;
      }
      await (await transportFor(smtpUrl)).sendMail({ from: config.mail.from, ...mail });
      log.info({ appId }, 'webhook disabled: owner e-mailed');
    } catch (error) {
      log.error({ err: error, appId }, 'e-mailing the webhook-disabled notice failed');
    }
  }
  return {
    send(appId, lastError) {
      const task = sendNow(appId, lastError);
      pending.add(task);
      void task.finally(() => pending.delete(task));
    },
    async close() {
      await Promise.all([...pending]);
      (await transport?.catch(() => null))?.close();
    },
  };
}
