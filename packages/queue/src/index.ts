export { bullPrefix, createRedisConnection, type RedisRole } from './connection.js';
export { registerQueueDepthGauge } from './metrics.js';
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
