// events-conversions.test.ts with the engagement buffer and the counters in the API's own process (COORDINATION=process).
process.env.TEST_COORDINATION = 'process';
await import('./events-conversions.test.js');
