export {
  type Config,
  ConfigValidationError,
  configFromEnv,
  defaultCryptoThreads,
  defaultProgressBatch,
  type OutboundProxy,
  parseRedisClusterNodes,
  type RedisNode,
  unrecordedBound,
} from './config.js';
export { type Env, EnvSchema } from './env-schema.js';
export { loadConfig } from './load.js';
export { parseEnv } from './parse-env.js';
export { isAllowedPushHost, type PushHostRule, parsePushHosts } from './push-hosts.js';
export { vapidSubjectProblem } from './vapid-subject.js';
