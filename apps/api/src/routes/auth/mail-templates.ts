import type { MailMessage } from '#plugins/app/mailer.js';
import type { Language } from '../../languages.js';

/**
 * The account e-mails in each language, as plain text and HTML (docs/accounts.md: they go
 * out in the account's language). Japanese first. Each template is the whole message, so a reader
 * of one language never gets the other.
 */
interface MailText {
  subject: string;
  /** Paragraphs before the link. */
  intro: string[];
  button: string;
  /** Paragraphs after the link. */
  outro: string[];
}

const verifyEmail: Record<Language, MailText> = {
  ja: {
    subject: '【Web Push】メールアドレスの確認',
    intro: [
      'Web Push にご登録いただきありがとうございます。',
      '次のリンクを開いて、このメールアドレスがご本人のものであることを確認してください（24 時間有効）。',
    ],
    button: 'メールアドレスを確認する',
    outro: ['お心当たりのない場合は、このメールを破棄してください。'],
  },
  en: {
    subject: 'Confirm your e-mail address for Web Push',
    intro: [
      'Thank you for signing up for Web Push.',
      'Open this link to confirm that this address is yours (it is valid for 24 hours).',
    ],
    button: 'Confirm my e-mail address',
    outro: ['If you did not create an account, ignore this message.'],
  },
};

const resetPassword: Record<Language, MailText> = {
  ja: {
    subject: '【Web Push】パスワードの再設定',
    intro: [
      'お使いのアカウントのパスワード再設定が要求されました。',
      '1 時間以内に次のリンクを開いて、新しいパスワードを設定してください。',
    ],
    button: '新しいパスワードを設定する',
    outro: [
      '新しいパスワードを設定すると、すべての端末でログアウトされます。',
      'お心当たりのない場合は、このメールを破棄してください。パスワードは変更されません。',
    ],
  },
  en: {
    subject: 'Reset your Web Push password',
    intro: [
      'Someone asked to reset the password of your account.',
      'Open this link within one hour to choose a new one.',
    ],
    button: 'Choose a new password',
    outro: [
      'Setting a new password signs you out everywhere.',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ],
  },
};

/** The invitation to an app: who invites, to which app, as what (docs/accounts.md, "Teams"). */
export interface InvitationFacts {
  inviter: string;
  appName: string;
  role: 'admin' | 'editor' | 'viewer';
}

const roleNames: Record<Language, Record<InvitationFacts['role'], string>> = {
  ja: { admin: '管理者', editor: '編集者', viewer: '閲覧者' },
  en: { admin: 'admin', editor: 'editor', viewer: 'viewer' },
};

const invitation = (facts: InvitationFacts): Record<Language, MailText> => ({
  ja: {
    subject: `【Web Push】「${facts.appName}」への招待`,
    intro: [
      `${facts.inviter} さんから、Web Push のアプリ「${facts.appName}」に${roleNames.ja[facts.role]}として招待されました。`,
      '次のリンクを開き、このメールアドレスのアカウントでログインして招待を受け入れてください（7 日間有効、1 回限り）。',
    ],
    button: '招待を受け入れる',
    outro: ['お心当たりのない場合は、このメールを破棄してください。'],
  },
  en: {
    subject: `You are invited to ${facts.appName} on Web Push`,
    intro: [
      `${facts.inviter} invited you to the Web Push app “${facts.appName}” as ${roleNames.en[facts.role]}.`,
      'Open this link and sign in with an account of this address to accept (valid for 7 days, once).',
    ],
    button: 'Accept the invitation',
    outro: ['If you did not expect this, ignore this message.'],
  },
});

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function render(to: string, language: Language, mail: MailText, link: string): MailMessage {
  // The link on a line of its own: mail clients make it clickable, and a reader can copy it whole.
  const text = [...mail.intro, '', link, '', ...mail.outro, '', '-- ', 'Web Push'].join('\n');
  const paragraphs = (lines: string[]) => lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n');
  const href = escapeHtml(link);
  const html = [
    '<!doctype html>',
    `<html lang="${language}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(mail.subject)}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.6; color: #1f2430; max-width: 560px; margin: 0 auto; padding: 24px;">',
    paragraphs(mail.intro),
    `<p><a href="${href}" style="display: inline-block; padding: 10px 18px; background: #2d5bd7; color: #ffffff; border-radius: 6px; text-decoration: none;">${escapeHtml(mail.button)}</a></p>`,
    `<p style="font-size: 13px; color: #5a6172; word-break: break-all;">${href}</p>`,
    paragraphs(mail.outro),
    '<p style="font-size: 13px; color: #5a6172;">Web Push</p>',
    '</body>',
    '</html>',
  ].join('\n');
  return { to, subject: mail.subject, text, html };
}

export const verificationMail = (to: string, language: Language, link: string): MailMessage =>
  render(to, language, verifyEmail[language], link);

export const passwordResetMail = (to: string, language: Language, link: string): MailMessage =>
  render(to, language, resetPassword[language], link);

export const invitationMail = (to: string, language: Language, facts: InvitationFacts, link: string): MailMessage =>
  render(to, language, invitation(facts)[language], link);
