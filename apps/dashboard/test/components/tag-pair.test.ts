import t from 'tap';
import { tagPairOf } from '../../src/components/tag-pair.js';
import { tagsOf } from '../../src/features/send/send-draft.js';

// One tag syntax in the dashboard: `key=value`, with the API filter's `key:value` read the same.
t.test('a pair splits at its first = or :', async (t) => {
  t.same(tagPairOf('lang=ja'), { key: 'lang', value: 'ja' });
  t.same(tagPairOf(' lang : ja '), { key: 'lang', value: 'ja' });
  t.same(tagPairOf('ref=a:b'), { key: 'ref', value: 'a:b' }, 'a value may hold the other separator');
  t.same(tagPairOf('ref:a=b'), { key: 'ref', value: 'a=b' });
  t.equal(tagPairOf('lang'), null);
  t.equal(tagPairOf('=ja'), null, 'a pair needs a key');
});

t.test('the send form takes both forms, one a line or comma separated', async (t) => {
  t.same(tagsOf('lang=ja\nplan:pro'), { tags: { lang: 'ja', plan: 'pro' } });
  t.same(tagsOf('lang:ja, plan=pro'), { tags: { lang: 'ja', plan: 'pro' } });
  t.same(tagsOf('lang'), { problem: { key: 'send.tagsNotPair', values: { pair: 'lang' } } });
});
