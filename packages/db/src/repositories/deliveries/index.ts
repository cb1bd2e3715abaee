/**
 * The worker's side of a notification: planning its delivery chunks, recording what each chunk
 * achieved, and finding notifications that stopped moving. These run for whichever app a queued
 * job names; the job carries ids the API wrote, never customer input.
 */

export { type AnsweredBatch, type AnswerKind, type ChunkRefusals, emptyAnsweredBatch } from './answers.js';
export * from './chunk-start.js';
export * from './local-groups.js';
export * from './outcome.js';
export * from './plan.js';
export * from './progress.js';
export type { ChunkCounts, ChunkKey, DeliveryChunk } from './shared.js';
export * from './stalled.js';
