export {
  type Config,
  ConfigValidationError,
  defaultCryptoThreads,
  defaultProgressBatch,
  loadConfig,
  type OutboundProxy,
  parseRedisClusterNodes,
  type RedisNode,
  unrecordedBound,
} from './config.js';
export { type Env, EnvSchema } from './env-schema.js';
export { isAllowedPushHost, type PushHostRule, parsePushHosts } from './push-hosts.js';
export { vapidSubjectProblem } from './vapid-subject.js';
