// `pnpm admin <command>`: operations that need a shell. `set-plan` (docs/operations.md; the
// operator console does the same from the dashboard) and `grant-operator`, which makes the first
// operator. Configured like `pnpm dev`: the environment over `.env`, and PUBLIC_URL following PORT
// when neither sets it; exits 0 on success, 1 when the request cannot be done, 2 on bad usage.
import { isPlanName, planNames } from '@webpush/plans';
import { launcherEnv } from './env-file.mjs';
import { chooseMode, runningEmbedded } from './mode.mjs';

const launched = launcherEnv(new URL('../.env', import.meta.url).pathname).env;
/**
 * Configured like `pnpm dev` chooses its mode: with no database configured, the embedded
 * PostgreSQL that a running `pnpm dev` or `pnpm start` left its URL for (scripts/mode.mjs).
 */
function adminEnv(): Record<string, string | undefined> {
  // The commands need only the database: DATABASE_URL alone is enough here (the running API hears of
  // a change through Redis when REDIS_URL is set too, else on its next look-up).
  if (launched.DATABASE_URL) return launched;
  if (chooseMode(launched) !== 'embedded') return launched;
  const running = runningEmbedded(launched);
  if (running === null) {
    throw new CommandError(
      'no database configured and no embedded PostgreSQL running: start `pnpm dev` (or `pnpm start`) first, or set DATABASE_URL and REDIS_URL',
      1,
    );
  }
  return running;
}

const USAGE = `usage: pnpm admin set-plan <email> <plan>
       pnpm admin grant-operator <email>

  set-plan         moves the user with <email> to <plan>, one of: ${planNames.join(', ')}
  grant-operator   gives the user with <email> the operator role: the operator console in the dashboard`;

class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const usageError = (problem: string) => new CommandError(`${problem}\n\n${USAGE}`, 2);

async function setPlan(args: string[]): Promise<string> {
  const [rawEmail, rawPlan, ...extra] = args;
  if (rawEmail === undefined || rawPlan === undefined || extra.length > 0) {
    throw usageError('set-plan takes exactly two arguments: <email> <plan>');
  }
  const email = rawEmail.trim().toLowerCase(); // as the API stores it
  const plan = rawPlan.trim().toLowerCase();
  if (email === '') throw usageError('the e-mail is empty');
  if (!isPlanName(plan)) {
    throw new CommandError(`unknown plan "${rawPlan}": choose one of ${planNames.join(', ')}`, 1);
  }

  // Loaded only here, so a usage mistake is answered at once, without loading the database layer.
  const { loadConfig } = await import('@webpush/config');
  const { ADMIN_CLI_OPERATOR, createDatabase, setUserPlan } = await import('@webpush/db');
  const config = loadConfig(adminEnv());
  const database = createDatabase(config.databaseUrl, { max: 1 });
  try {
    const user = await setUserPlan(database.db, email, plan, {
      actor: { type: 'operator', id: ADMIN_CLI_OPERATOR },
      ip: null,
    });
    if (!user) throw new CommandError(`no user with the e-mail ${email}`, 1);
    if (config.coordination === 'process') {
      // An API with its counters in its own process listens on PostgreSQL (LISTEN/NOTIFY).
      const { notifyPrincipalChange } = await import('@webpush/queue');
      await notifyPrincipalChange(database.sql, config.redisKeyPrefix, { userId: user.id });
    } else await tellApiInstances(config, user.id);
    return `${user.email} is now on the ${user.plan} plan`;
  } finally {
    await database.close();
  }
}

/**
 * API instances keep API-key principals (with the owner's plan) for up to API_KEY_CACHE_TTL_MS; tell
 * them through Redis so the new plan applies to the next request. Best effort: without Redis the
 * plan still applies once their entries expire.
 */
async function tellApiInstances(config: import('@webpush/config').Config, userId: string): Promise<void> {
  const { closeRedisConnection, createRedisConnection, publishPrincipalChange } = await import('@webpush/queue');
  const redis = createRedisConnection(config, 'producer');
  redis.on('error', () => {});
  try {
    await Promise.race([
      new Promise<void>((resolve, reject) => {
        redis.once('ready', () =>
          publishPrincipalChange(redis, config.redisKeyPrefix, { userId }).then(resolve, reject),
        );
      }),
      new Promise<void>((_resolve, reject) =>
        setTimeout(() => reject(new Error('Redis did not answer')), 3_000).unref(),
      ),
    ]);
  } catch (error) {
    console.error(
      `note: API instances could not be told (${error instanceof Error ? error.message : String(error)}); ` +
        'they apply the new plan within API_KEY_CACHE_TTL_MS',
    );
  } finally {
    await closeRedisConnection(redis);
  }
}

async function grantOperator(args: string[]): Promise<string> {
  const [rawEmail, ...extra] = args;
  if (rawEmail === undefined || extra.length > 0)
    throw usageError('grant-operator takes exactly one argument: <email>');
  const email = rawEmail.trim().toLowerCase(); // as the API stores it
  if (email === '') throw usageError('the e-mail is empty');

  const { loadConfig } = await import('@webpush/config');
  const { createDatabase, grantOperatorRole } = await import('@webpush/db');
  const config = loadConfig(adminEnv());
  const database = createDatabase(config.databaseUrl, { max: 1 });
  try {
    const granted = await grantOperatorRole(database.db, email);
    if (!granted) throw new CommandError(`no user with the e-mail ${email}`, 1);
    if (granted === 'unverified') {
      throw new CommandError(
        `${email} has not verified its e-mail address: nothing changed. The operator role goes only to an ` +
          'account that proved it owns its address (the link of the verification e-mail, or a GitHub sign-in).',
        1,
      );
    }
    if (granted.already) return `${granted.user.email} already has the operator role: nothing changed`;
    return `${granted.user.email} now has the operator role: the operator console is at ${config.publicUrl}/operator`;
  } finally {
    await database.close();
  }
}

async function main(argv: string[]): Promise<string> {
  const [command, ...args] = argv;
  if (command === undefined) throw usageError('no command given');
  if (command === '--help' || command === '-h' || command === 'help') return USAGE;
  if (command === 'set-plan') return setPlan(args);
  if (command === 'grant-operator') return grantOperator(args);
  throw usageError(`unknown command "${command}"`);
}

try {
  console.log(await main(process.argv.slice(2)));
} catch (error) {
  if (error instanceof CommandError) {
    console.error(error.message);
    process.exitCode = error.exitCode;
  } else {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    console.error(`admin failed: ${error instanceof Error ? error.message : String(error)}${cause}`);
    process.exitCode = 1;
  }
}
