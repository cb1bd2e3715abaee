// bull-board.test.ts with the failed ops login counter in the API's own process (COORDINATION=process).
process.env.TEST_COORDINATION = 'process';
await import('./bull-board.test.js');
