// rate-limit.test.ts with the API's counters in its own process (COORDINATION=process).
process.env.TEST_COORDINATION = 'process';
await import('./rate-limit.test.js');
