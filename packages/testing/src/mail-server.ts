import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message the local SMTP server accepted, parsed as a mail client would read it. */
export interface ReceivedMail {
  /** Envelope sender and recipients (MAIL FROM / RCPT TO). */
  envelope: { from: string; to: string[] };
  parsed: ParsedMail;
  /** The plain-text body. */
  text: string;
}

export interface WaitForOptions {
  count?: number;
  matching?: (mail: ReceivedMail) => boolean;
  timeoutMs?: number;
}

export interface MailServer {
  /** `SMTP_URL` for the service: `smtp://127.0.0.1:<port>`. */
  readonly env: { SMTP_URL: string };
  /** Every message accepted so far, oldest first. */
  readonly received: ReceivedMail[];
  /** Messages whose envelope recipients include `address` (case-insensitive), optionally only those `matching`. */
  to(address: string, matching?: (mail: ReceivedMail) => boolean): ReceivedMail[];
  /**
   * Resolves with the `count`-th message to `address` (1 = the first) among those `matching`,
   * waiting for it up to `timeoutMs` (default 10 s). Messages sent in the background may arrive in
   * any order, hence `matching`.
   */
  waitFor(address: string, options?: WaitForOptions): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on a loopback port (the `smtp-server` package), for tests that read the e-mails
 * the service sends. Plain SMTP without AUTH or STARTTLS, as a local relay would be.
 */
export async function startMailServer(): Promise<MailServer> {
  const received: ReceivedMail[] = [];
  const waiters = new Set<() => void>();

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          received.push({
            envelope: { from, to: session.envelope.rcptTo.map((rcpt) => rcpt.address) },
            parsed,
            text: parsed.text ?? '',
          });
          for (const wake of waiters) wake();
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  const to = (address: string, matching: (mail: ReceivedMail) => boolean = () => true) =>
    received.filter(
      (mail) => mail.envelope.to.some((rcpt) => rcpt.toLowerCase() === address.toLowerCase()) && matching(mail),
    );

  return {
    env: { SMTP_URL: `smtp://127.0.0.1:${port}` },
    received,
    to,
    async waitFor(address, { count = 1, matching, timeoutMs = 10_000 } = {}) {
      const found = () => to(address, matching)[count - 1];
      const already = found();
      if (already) return already;
      return new Promise<ReceivedMail>((resolve, reject) => {
        const wake = () => {
          const mail = found();
          if (!mail) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(mail);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no e-mail #${count} to ${address} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
