/** Queue names, shared by the producer (API) and the consumer (worker). */
export const queueNames = {
  fanOut: 'fan-out',
  deliveries: 'deliveries',
} as const;

export type QueueName = (typeof queueNames)[keyof typeof queueNames];
