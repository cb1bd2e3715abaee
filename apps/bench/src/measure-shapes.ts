import type { AudienceFigures } from './measure-audiences.js';

/** (v) The send shapes against a plain send of the same run (see `measureShapes` in main.ts). */
export interface ShapeFigures {
  plainSendsPerSec: number;
  plainRunsPerSec: number[];
  shapes: Record<
    'variants' | 'translations' | 'capped',
    {
      sendsPerSec: number;
      runsPerSec: number[];
      /** plain / shape − 1: 0.04 is 4 % slower. */
      slowerBy: number;
      /** The largest `slowerBy` the target allows. */
      bound: number;
      met: boolean;
    }
  >;
}

const SHAPE_NAMES = {
  variants: 'two A/B variants',
  translations: 'three languages (translations)',
  capped: 'frequency cap set',
} as const;

/** The segment count's bound: a 5-leaf expression takes at most this many times the AND of tags. */
export const TARGET_SEGMENT_RATIO = 2;

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

export function shapeRows(figures: ShapeFigures | null): string[][] {
  if (!figures) return [];
  return (Object.keys(SHAPE_NAMES) as (keyof typeof SHAPE_NAMES)[]).map((name) => {
    const shape = figures.shapes[name];
    return [
      `(v) fan-out, ${SHAPE_NAMES[name]}`,
      `${Math.round(shape.sendsPerSec).toLocaleString('en-US')} sends/s`,
      `vs a plain send ${Math.round(figures.plainSendsPerSec).toLocaleString('en-US')}/s in the same worker, ` +
        `interleaved rounds, medians: ${percent(shape.slowerBy)} slower`,
    ];
  });
}

export function shapeVerdicts(figures: ShapeFigures | null, audiences: AudienceFigures | null): string[] {
  const verdict = (met: boolean) => (met ? 'MET' : 'NOT MET');
  const lines = (Object.keys(SHAPE_NAMES) as (keyof typeof SHAPE_NAMES)[]).map((name) => {
    const shape = figures?.shapes[name];
    const target = `Target fan-out with ${SHAPE_NAMES[name]} within ${percent(shape?.bound ?? (name === 'variants' ? 0.05 : 0.1))} of a plain send`;
    return shape ? `${target}: ${percent(shape.slowerBy)} slower  ${verdict(shape.met)}` : `${target}: –  not assessed`;
  });
  const ratio = audiences ? audiences.segmentCountMs / audiences.tagsCountMs : null;
  lines.push(
    ratio === null
      ? `Target 5-leaf segment count ≤ ${TARGET_SEGMENT_RATIO}× the AND of tags: –  not assessed`
      : `Target 5-leaf segment count ≤ ${TARGET_SEGMENT_RATIO}× the AND of tags: ${audiences?.segmentCountMs.toFixed(1)} ms vs ` +
          `${audiences?.tagsCountMs.toFixed(1)} ms = ${ratio.toFixed(2)}×  ${verdict(ratio <= TARGET_SEGMENT_RATIO)}`,
  );
  return lines;
}

/** (q) Another app's 1-subscriber send during a send to every subscription of the bench app. */
export interface FairnessFigures {
  /** From its 202 to `completedAt` (the contract: pushed within 2 s). */
  smallCompletedMs: number;
  /** Pushes of the large send at the stand-in when the small one had completed. */
  largeSentThen: number;
  largeTargets: number;
  largeSeconds: number;
}

export const TARGET_FAIRNESS_MS = 2_000;

export function fairnessVerdict(figures: FairnessFigures | null): string {
  const target = `Target another app's 1-subscriber send completed ≤ ${TARGET_FAIRNESS_MS} ms after its 202 during a large send`;
  if (!figures) return `${target}: –  not assessed`;
  return (
    `${target}: ${figures.smallCompletedMs.toFixed(0)} ms (the large send at ${figures.largeSentThen} of ` +
    `${figures.largeTargets})  ${figures.smallCompletedMs <= TARGET_FAIRNESS_MS ? 'MET' : 'NOT MET'}`
  );
}

/** (v) A throttled send: `throttle.perMinute` set so that the whole send should take `expectedSeconds`. */
export interface ThrottleFigures {
  targets: number;
  perMinute: number;
  /** targets / perMinute minutes: 100 s (60,000 a minute to 100,000 subscribers, and in proportion). */
  expectedSeconds: number;
  /** From POST /notify to `completedAt`. */
  seconds: number;
}

/** The throttled send's bound: within 10 % of the expected duration. */
export const THROTTLE_TOLERANCE = 0.1;

export function throttleVerdict(figures: ThrottleFigures | null): string {
  const target = `Target a send throttled to 60 % of its targets a minute finishes in 100 s ± ${THROTTLE_TOLERANCE * 100} %`;
  if (!figures) return `${target}: –  not assessed`;
  const off = figures.seconds / figures.expectedSeconds - 1;
  return (
    `${target}: ${figures.targets.toLocaleString('en-US')} at ${figures.perMinute.toLocaleString('en-US')}/min in ` +
    `${figures.seconds.toFixed(1)} s (${off >= 0 ? '+' : ''}${(off * 100).toFixed(1)} %)  ${Math.abs(off) <= THROTTLE_TOLERANCE ? 'MET' : 'NOT MET'}`
  );
}

/** The bound of a local-time send's accept: at most this many times a plain send's, same app, same run. */
export const TARGET_LOCAL_TIME_RATIO = 2;

export function localTimeVerdict(audiences: AudienceFigures | null): string {
  const target = `Target accepting a localTime send over 24 zones ≤ ${TARGET_LOCAL_TIME_RATIO}× a plain send's accept`;
  if (!audiences) return `${target}: –  not assessed`;
  const ratio = audiences.localTimeAcceptP50Ms / audiences.plainAcceptP50Ms;
  return (
    `${target}: p50 ${audiences.localTimeAcceptP50Ms.toFixed(1)} ms vs ${audiences.plainAcceptP50Ms.toFixed(1)} ms ` +
    `to ${audiences.acceptTargets.toLocaleString('en-US')} subscribers = ${ratio.toFixed(2)}×  ${ratio <= TARGET_LOCAL_TIME_RATIO ? 'MET' : 'NOT MET'}`
  );
}
