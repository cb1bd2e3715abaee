export {
  type Config,
  defaultCryptoThreads,
  defaultProgressBatch,
  type OutboundProxy,
  parseRedisClusterNodes,
  type RedisNode,
  unrecordedBound,
} from './config.js';
export { type Env, EnvSchema } from './env-schema.js';
export { ConfigValidationError } from './errors.js';
export { loadConfig } from './load.js';
export { isAllowedPushHost, type PushHostRule, parsePushHosts } from './push-hosts.js';
export { vapidSubjectProblem } from './vapid-subject.js';
