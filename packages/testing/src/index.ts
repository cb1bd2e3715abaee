export { testConfig, testCoordination } from './config.js';
export { type ConnectProxy, type ConnectProxyOptions, startConnectProxy } from './connect-proxy.js';
export {
  type DedicatedPostgres,
  type DedicatedRedis,
  startDedicatedPostgres,
  startDedicatedRedis,
} from './dedicated-servers.js';
export {
  type DeliveryHarness,
  deliveryHarnessFor,
  type InProcessWorkerDeps,
  type NotificationStatus,
  type PushSenderFactory,
  type StartDeliveryHarness,
  unknownToPushService,
  type WorkerStarter,
} from './delivery-harness.js';
export {
  assertError,
  type ErrorExpectation,
  sessionCookie,
  setCookies,
  TEST_PUBLIC_URL,
  UUID,
} from './error-assertions.js';
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
export { setNotificationCreatedAt } from './notification-created-at.js';
export { unusedPort } from './ports.js';
export {
  endProcessIfHeldOpen,
  type RedisCluster,
  type RedisClusterNode,
  type RedisClusterOptions,
  startRedisCluster,
} from './redis-cluster.js';
export { richNotificationFields } from './rich-notification.js';
export { type NodeRun, runNode } from './run-node.js';
export { createSelfSignedCertificate, type SelfSignedCertificate } from './self-signed-cert.js';
export { appSubscriberCounted, subscriberCounted } from './subscriber-count.js';
export {
  type AppBuilder,
  type AppBuilderOptions,
  type BuildTestApp,
  bearer,
  createApp,
  createKey,
  fakeSubscription,
  type Owner,
  ownerWithKey,
  planDelivery,
  registerUser,
  revokeKey,
  subscribe,
  type TestContext,
  testAppBuilder,
  uniqueEmail,
} from './test-app.js';
export { pause, quietFor, type WaitOptions, waitFor, waitForValue } from './wait-for.js';
export {
  type ReceivedWebhook,
  type ReceiverReply,
  startWebhookReceiver,
  type WebhookReceiver,
} from './webhook-receiver.js';
