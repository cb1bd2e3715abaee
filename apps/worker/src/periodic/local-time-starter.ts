import { type StartedLocalGroup, startDueLocalGroups } from '@webpush/db';
import { requeueFanOut } from '@webpush/queue';
import type { WorkerContext } from '../context.js';
import { startPeriodicTask } from './periodic-task.js';

/** Groups started per pass at most; the rest on the next pass. */
const BATCH = 200;

export interface LocalTimeStarter {
  /** One pass now; resolves to the groups it started. */
  runOnce(): Promise<StartedLocalGroup[]>;
  stop(): Promise<void>;
}

/**
 * Starts the due groups of `localTime` sends (docs/sending.md, "Local time"). Polled from
 * PostgreSQL on the scheduler's interval, as scheduled sends are, so a restart of every process or
 * a Redis that lost its data delays nothing. Each started group's notification gets its fan-out
 * job (again: the job of an earlier group has finished), which plans that group's chunks.
 */
export function startLocalTimeStarter(context: WorkerContext): LocalTimeStarter {
  const { db, queues, config, log } = context;

  async function runOnce(): Promise<StartedLocalGroup[]> {
    const started = await startDueLocalGroups(db, BATCH);
    for (const notificationId of new Set(started.map((group) => group.notificationId))) {
      await requeueFanOut(queues.fanOut, notificationId).catch((error: unknown) =>
        log.error({ err: error, notificationId }, 'could not queue the fan-out; the reconciler will'),
      );
    }
    if (started.length > 0) log.info({ groups: started.length }, 'local-time groups started');
    return started;
  }

  return startPeriodicTask('local-time starter', config.delivery.schedulerIntervalMs, runOnce, log);
}
