import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The same message as HTML (sent as multipart/alternative beside `text`). */
  html?: string;
}

/** A message, or the work that builds it (e.g. stores a token first); null: nothing to send. */
export type MailJob = () => Promise<MailMessage | null>;

declare module 'fastify' {
  interface FastifyInstance {
    mailer: {
      /**
       * Builds and sends in the background, after the caller's answer: a slow or failing mail server
       * never fails or slows the request. Failures are logged; the user can ask again (resend).
       */
      sendLater(job: MailJob): void;
      /** Resolves when every send started so far has finished (tests, shutdown). */
      settled(): Promise<void>;
    };
  }
}

/** Where messages go without SMTP_URL outside production, whole, links included. */
export const DEV_OUTBOX_DIR = join(tmpdir(), 'webpush-mail');

/**
 * E-mail through SMTP (`SMTP_URL`, `MAIL_FROM`) with nodemailer. Without `SMTP_URL` each message is
 * written to the log instead (development), which is said once at boot. The log never carries a
 * link's token (the logger scrubs it), so outside production the whole message is also written to a
 * file in DEV_OUTBOX_DIR, whose path the log line names: a developer can still open the link.
 */
export default fp(
  async (app: FastifyInstance) => {
    const { smtpUrl, from } = app.config.mail;
    const transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
    if (!transport) app.log.warn('SMTP_URL is not set: e-mails are written to the log instead of being sent');
    if (app.config.mail.operator === null) {
      app.log.warn('OPERATOR_EMAIL is not set: plan requests from /pricing only appear in the operator console');
    }

    const deliver = async (message: MailMessage): Promise<void> => {
      if (!transport) {
        const file = app.config.env === 'production' ? undefined : await writeToOutbox(message);
        app.log.info({ mail: message, file }, 'e-mail (not sent: no SMTP_URL)');
        return;
      }
      await transport.sendMail({ from, ...message });
    };

    const writeToOutbox = async (message: MailMessage): Promise<string> => {
      await mkdir(DEV_OUTBOX_DIR, { recursive: true, mode: 0o700 });
      const file = join(DEV_OUTBOX_DIR, `${Date.now()}-${message.to.replace(/[^A-Za-z0-9@._-]/g, '_')}.txt`);
      await writeFile(file, `To: ${message.to}\nSubject: ${message.subject}\n\n${message.text}`, { mode: 0o600 });
      return file;
    };

    const pending = new Set<Promise<void>>();
    const sendLater = (job: MailJob): void => {
      const task = (async () => {
        try {
          const message = await job();
          if (message) await deliver(message);
        } catch (error) {
          app.log.error({ err: error }, 'sending an e-mail failed');
        }
      })();
      pending.add(task);
      void task.finally(() => pending.delete(task));
    };
    const settled = async (): Promise<void> => {
      while (pending.size > 0) await Promise.all([...pending]);
    };

    app.decorate('mailer', { sendLater, settled });
    app.addHook('onClose', async () => {
      await settled();
      transport?.close();
    });
  },
  { name: 'mailer', dependencies: ['config'] },
);
