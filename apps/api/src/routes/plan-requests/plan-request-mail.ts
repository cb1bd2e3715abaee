import { isPlanName, planDisplayNames } from '@webpush/plans';
import type { MailMessage } from '#plugins/app/mailer.js';

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const planName = (plan: string) => (isPlanName(plan) ? planDisplayNames[plan] : plan);

/**
 * The e-mail to OPERATOR_EMAIL when a customer asks for a plan on the pricing page. The operator's
 * language is not known, so the message carries both: Japanese first, then English. The console
 * link is on a line of its own; one click there grants the request.
 */
export function planRequestMail(input: {
  to: string;
  customer: string;
  currentPlan: string;
  plan: string;
  message: string | null;
  consoleUrl: string;
}): MailMessage {
  const from = planName(input.currentPlan);
  const wanted = planName(input.plan);
  const ja = [
    `${input.customer} さんが ${wanted} プランを希望しています（現在は ${from} プラン）。`,
    '運営コンソールで依頼を確認し、「承認」を押すとプランが変わります。',
  ];
  const en = [
    `${input.customer} asks for the ${wanted} plan (now on ${from}).`,
    'Open the operator console to grant it: one click changes the plan.',
  ];
  const note = input.message ? [`メッセージ / Message: ${input.message}`] : [];
  const text = [
    ...ja,
    '',
    ...en,
    '',
    ...note,
    ...(note.length ? [''] : []),
    input.consoleUrl,
    '',
    '-- ',
    'Web Push',
  ].join('\n');
  const paragraphs = (lines: string[], lang: string) =>
    lines.map((line) => `<p lang="${lang}">${escapeHtml(line)}</p>`).join('\n');
  const href = escapeHtml(input.consoleUrl);
  const html = [
    '<!doctype html>',
    '<html lang="ja">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`Plan request: ${input.customer}`)}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.6; color: #1f2430; max-width: 560px; margin: 0 auto; padding: 24px;">',
    paragraphs(ja, 'ja'),
    paragraphs(en, 'en'),
    input.message
      ? `<blockquote style="border-left: 3px solid #c9cfdb; margin: 0; padding-left: 12px;">${escapeHtml(input.message)}</blockquote>`
      : '',
    `<p><a href="${href}" style="display: inline-block; padding: 10px 18px; background: #2d5bd7; color: #ffffff; border-radius: 6px; text-decoration: none;">運営コンソール / Operator console</a></p>`,
    `<p style="font-size: 13px; color: #5a6172; word-break: break-all;">${href}</p>`,
    '</body>',
    '</html>',
  ].join('\n');
  return {
    to: input.to,
    subject: `【Web Push】プラン変更の依頼 / Plan request: ${input.customer} → ${wanted}`,
    text,
    html,
  };
}
