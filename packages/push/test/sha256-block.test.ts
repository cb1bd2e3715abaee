import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { SHA256_BLOCK_BYTES, SHA256_INITIAL_STATE, sha256Block } from '../src/sha256-block.js';

const digestOf = (state: Int32Array) => {
  const bytes = Buffer.alloc(32);
  state.forEach((word, i) => {
    bytes.writeInt32BE(word, i * 4);
  });
  return bytes.toString('hex');
};

t.test('the compression function gives node:crypto’s SHA-256 for messages of one and two blocks', async (t) => {
  for (const length of [0, 3, 55, 64, 64 + 33, 64 + 55]) {
    for (let round = 0; round < 20; round++) {
      const message = randomBytes(length);
      // FIPS 180-4 §5.1.1 padding: 0x80, zeros, the length in bits as the last 8 bytes.
      const blocks = Math.ceil((length + 9) / SHA256_BLOCK_BYTES);
      const padded = Buffer.alloc(blocks * SHA256_BLOCK_BYTES);
      message.copy(padded);
      padded[length] = 0x80;
      padded.writeUInt32BE(length * 8, padded.length - 4);
      const state = new Int32Array(SHA256_INITIAL_STATE);
      for (let at = 0; at < padded.length; at += SHA256_BLOCK_BYTES) {
        sha256Block(state, padded.subarray(at, at + SHA256_BLOCK_BYTES));
      }
      if (digestOf(state) !== createHash('sha256').update(message).digest('hex')) {
        t.fail(`${length}-byte message ${message.toString('hex')}`);
      }
    }
  }
  t.equal(
    digestOf(
      (() => {
        const state = new Int32Array(SHA256_INITIAL_STATE);
        const block = Buffer.alloc(64);
        block.write('abc');
        block[3] = 0x80;
        block[63] = 24;
        sha256Block(state, block);
        return state;
      })(),
    ),
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    'FIPS 180-2 example "abc"',
  );
});
