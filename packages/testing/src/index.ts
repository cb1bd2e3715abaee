export { testConfig } from './config.js';
export { type ConnectProxy, type ConnectProxyOptions, startConnectProxy } from './connect-proxy.js';
export {
  type DedicatedPostgres,
  type DedicatedRedis,
  startDedicatedPostgres,
  startDedicatedRedis,
} from './dedicated-servers.js';
export {
  type FakeGithub,
  type FakeGithubEmail,
  type FakeGithubEnv,
  type FakeGithubOptions,
  type FakeGithubUser,
  type GithubOutage,
  type RecordedGithubRequest,
  startFakeGithub,
} from './fake-github.js';
export {
  checkPushHeaders,
  decryptPushMessage,
  type FakePushService,
  type FakePushServiceOptions,
  type FakeReply,
  type FakeSubscription,
  isUnreachableSubject,
  type ProtocolError,
  ProtocolViolation,
  type ReceivedPush,
  type SubscriberKeys,
  startFakePushService,
  type VapidClaims,
  type ViolationKind,
  verifyVapid,
} from './fake-push-service.js';
export {
  adminDatabaseUrl,
  createIsolatedResources,
  databaseUrlFor,
  deleteRedisKeys,
  type IsolatedResources,
  testRedisUrl,
} from './isolation.js';
export { type MailServer, type ReceivedMail, startMailServer } from './mail-server.js';
export { unusedPort } from './ports.js';
export {
  type RedisCluster,
  type RedisClusterNode,
  type RedisClusterOptions,
  startRedisCluster,
} from './redis-cluster.js';
export { createSelfSignedCertificate, type SelfSignedCertificate } from './self-signed-cert.js';
export { subscriberCounted } from './subscriber-count.js';
export { waitFor } from './wait-for.js';
