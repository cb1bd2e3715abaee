import { setTimeout as sleep } from 'node:timers/promises';

export interface NotificationRun {
  id: string;
  /** Date.now() just before POST /notify. */
  postedAt: number;
  /** From just before POST /notify to the notification's `completedAt`. */
  seconds: number;
  /** From just before POST /notify to the poll that saw it finished (100 ms resolution). */
  observedSeconds: number;
  targets: number;
  sent: number;
  failed: number;
  expired: number;
}

interface NotificationBody {
  notification: {
    id: string;
    status: string;
    targets: number;
    sent: number;
    failed: number;
    expired: number;
    completedAt: string | null;
  };
}

const POLL_MS = 100;

/**
 * POST /notify to every subscriber of the key's app through the API, then polls
 * GET /notifications/:id every 100 ms until the worker has finished it.
 */
export async function notifyAndWait(
  apiUrl: string,
  secret: string,
  body: object,
  timeoutMs: number,
  /** Called every `progressEveryMs` while the send is under way (long runs: the 1,000,000 mode). */
  onProgress?: (progress: { id: string; postedAt: number; sent: number; targets: number }) => Promise<void> | void,
  progressEveryMs = 30_000,
): Promise<NotificationRun> {
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const started = Date.now();
  const accepted = await fetch(`${apiUrl}/api/v1/notify`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (accepted.status !== 202) throw new Error(`POST /notify answered ${accepted.status}: ${await accepted.text()}`);
  const { id } = ((await accepted.json()) as NotificationBody).notification;

  let nextProgress = started + progressEveryMs;
  for (;;) {
    await sleep(POLL_MS);
    const response = await fetch(`${apiUrl}/api/v1/notifications/${id}`, { headers });
    if (response.status !== 200) throw new Error(`GET /notifications/${id} answered ${response.status}`);
    const { notification } = (await response.json()) as NotificationBody;
    const observedSeconds = (Date.now() - started) / 1000;
    if (notification.status === 'completed' || notification.status === 'failed') {
      const completedAt = notification.completedAt === null ? Date.now() : Date.parse(notification.completedAt);
      return {
        id,
        postedAt: started,
        seconds: Math.max(0.001, (completedAt - started) / 1000),
        observedSeconds,
        targets: notification.targets,
        sent: notification.sent,
        failed: notification.failed,
        expired: notification.expired,
      };
    }
    if (onProgress && Date.now() >= nextProgress) {
      nextProgress += progressEveryMs;
      await onProgress({ id, postedAt: started, sent: notification.sent, targets: notification.targets });
    }
    if (observedSeconds * 1000 > timeoutMs) {
      throw new Error(
        `notification ${id} still ${notification.status} after ${Math.round(observedSeconds)} s ` +
          `(${notification.sent} of ${notification.targets} sent)`,
      );
    }
  }
}
