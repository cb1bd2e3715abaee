export {
  bullSchema,
  newQueue,
  newWorker,
  type QueueSettings,
  type QueueTransport,
  queueTransport,
} from './backend.js';
export {
  bullPrefix,
  closeRedisConnection,
  createRedisConnection,
  isCluster,
  masterConnections,
  type RedisConnection,
  type RedisRole,
  type RedisTarget,
} from './connection.js';
export { registerQueueDepthGauge } from './metrics.js';
export {
  decodePrincipalChange,
  encodePrincipalChange,
  type Notifier,
  notifyPrincipalChange,
  type PrincipalChange,
  principalChangesChannel,
  principalNotifyChannel,
  publishOnPrincipalChannel,
  publishPrincipalChange,
} from './principal-changes.js';
export {
  chunkJobId,
  createQueues,
  type DeliveryChunkJob,
  defaultJobOptions,
  enqueueFanOut,
  type FanOutJob,
  fanOutJobId,
  jobNames,
  type QueueName,
  type Queues,
  queueDepths,
  queueNames,
  queueWebhookMessage,
  requeueFanOut,
  requeueUnlessInFlight,
  type WebhookJob,
  webhookJobOptions,
} from './queues.js';
