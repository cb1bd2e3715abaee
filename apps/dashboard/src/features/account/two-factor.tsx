import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client.js';
import { useMe } from '../../api/session.js';
import { CopyButton } from '../../components/copy-button.js';
import { ErrorMessage, LocalError } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { useI18n } from '../../i18n/index.js';
import { QrCode } from './qr-code.js';
import { useDisableTotp, useEnableTotp, useTotpSetup } from './use-security.js';

/** INVALID_TOKEN here is a code that does not match: the catalogue's message speaks of links. */
const WRONG_CODE = new LocalError('twoFactor.wrongCode');
const codeError = (error: unknown) => (error instanceof ApiError && error.code === 'INVALID_TOKEN' ? WRONG_CODE : null);

/** The base32 secret in groups of four, as authenticator apps print it; typed with or without spaces. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

/** Step 2 of turning it on: scan (or type) the secret, then prove it with a code. */
function ConfirmSetup({
  secret,
  otpauthUrl,
  onEnabled,
  onCancel,
}: {
  secret: string;
  otpauthUrl: string;
  onEnabled: (recoveryCodes: string[]) => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const [code, setCode] = useState('');
  const enable = useEnableTotp(onEnabled);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    enable.mutate(code.replace(/\s+/g, ''));
  };
  const wrong = codeError(enable.error);
  return (
    <div className="totp-setup" data-testid="totp-setup">
      <ol className="totp-steps">
        <li>
          <p>{t('twoFactor.scan')}</p>
          <QrCode text={otpauthUrl} label={t('twoFactor.qrLabel')} />
          <p className="hint">{t('twoFactor.manual')}</p>
          <div className="key-row">
            <code className="totp-secret" data-testid="totp-secret" data-secret={secret}>
              {grouped(secret)}
            </code>
            <CopyButton text={secret} label={t('twoFactor.copySecret')} />
          </div>
        </li>
        <li>
          <form onSubmit={submit} className="narrow">
            <Field
              id="totp-confirm-code"
              label={t('twoFactor.confirmCode')}
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              maxLength={16}
              value={code}
              onChange={(event) => {
                if (enable.isError) enable.reset();
                setCode(event.target.value);
              }}
              hint={t('twoFactor.confirmHint')}
              error={wrong}
            />
            {!wrong && <ErrorMessage error={enable.error} />}
            <div className="security-buttons">
              <button type="submit" className="button button-primary" disabled={enable.isPending}>
                {enable.isPending ? t('common.working') : t('twoFactor.turnOn')}
              </button>
              <button type="button" className="button" onClick={onCancel}>
                {t('common.cancel')}
              </button>
            </div>
          </form>
        </li>
      </ol>
    </div>
  );
}

/** The ten recovery codes, in the one answer that has them: copy or download, then they are gone. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useI18n();
  const text = `${codes.join('\n')}\n`;
  return (
    <div className="secret-panel recovery-panel">
      <p className="success" role="status">
        {t('twoFactor.enabled')}
      </p>
      <p className="warning" role="alert">
        {t('twoFactor.recoveryWarning')}
      </p>
      <ol className="recovery-codes" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="security-buttons">
        <CopyButton text={text} label={t('twoFactor.copyCodes')} />
        <a
          className="button button-small"
          download="web-push-recovery-codes.txt"
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
        >
          {t('twoFactor.downloadCodes')}
        </a>
      </div>
      <button type="button" className="button" onClick={onDone}>
        {t('twoFactor.savedCodes')}
      </button>
    </div>
  );
}

/** Turning it off takes a current code or an unused recovery code (the API's rule). */
function DisableTwoFactor() {
  const { t } = useI18n();
  const [code, setCode] = useState('');
  const disable = useDisableTotp();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    disable.mutate(code.trim(), { onSuccess: () => setCode('') });
  };
  const wrong = codeError(disable.error);
  return (
    <form onSubmit={submit} className="narrow">
      <p>{t('twoFactor.disableLead')}</p>
      <Field
        id="totp-disable-code"
        label={t('twoFactor.codeLabel')}
        autoComplete="one-time-code"
        autoCapitalize="off"
        spellCheck={false}
        required
        maxLength={64}
        value={code}
        onChange={(event) => {
          if (disable.isError) disable.reset();
          setCode(event.target.value);
        }}
        hint={t('twoFactor.codeHint')}
        error={wrong}
      />
      {!wrong && <ErrorMessage error={disable.error} />}
      <button type="submit" className="button button-danger-outline" disabled={disable.isPending}>
        {disable.isPending ? t('common.working') : t('twoFactor.turnOff')}
      </button>
    </form>
  );
}

/**
 * Two-factor sign-in: off → a new secret (QR code and text) → a code confirms it → the recovery
 * codes, shown once → on, where a code turns it off again.
 */
export function TwoFactorSetting() {
  const { t } = useI18n();
  const me = useMe();
  const setup = useTotpSetup();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const enabled = me.data?.totpEnabled === true;
  const body = recoveryCodes ? (
    <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />
  ) : enabled ? (
    <DisableTwoFactor />
  ) : setup.data ? (
    <ConfirmSetup
      secret={setup.data.secret}
      otpauthUrl={setup.data.otpauthUrl}
      onEnabled={(codes) => {
        setRecoveryCodes(codes);
        setup.reset();
      }}
      onCancel={() => setup.reset()}
    />
  ) : (
    <>
      <p>{t('twoFactor.offLead')}</p>
      <ErrorMessage error={setup.error} />
      <button type="button" className="button button-primary" onClick={() => setup.mutate()} disabled={setup.isPending}>
        {setup.isPending ? t('common.working') : t('twoFactor.setUp')}
      </button>
    </>
  );
  return (
    <section className="panel" aria-labelledby="two-factor-title">
      <div className="panel-heading">
        <h3 id="two-factor-title">{t('twoFactor.title')}</h3>
        <span className={enabled ? 'status status-active' : 'status'} data-testid="two-factor-state">
          {enabled ? t('twoFactor.on') : t('twoFactor.off')}
        </span>
      </div>
      {body}
    </section>
  );
}
