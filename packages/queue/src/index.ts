export { bullPrefix, createRedisConnection, type RedisRole } from './connection.js';
export { type QueueName, queueNames } from './queues.js';
