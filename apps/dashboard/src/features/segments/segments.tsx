import { MAX_SEGMENT_NAME_LENGTH } from '@webpush/plans';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable, Loaded } from '../../components/data-table.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { useI18n, usePageTitle } from '../../i18n/index.js';
import { roleAllows } from '../apps/app-role.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { SegmentBuilder } from './segment-builder.js';
import { compile, type Group, newGroup, type SegmentExpression, summaryOf, treeOf } from './segment-tree.js';
import { useCreateSegment, useDeleteSegment, useSegments, useUpdateSegment } from './use-segments.js';
import './segments.css';

/** The builder with a live count, a name to save it under, and the app's saved segments below. */
export function SegmentsPage() {
  const app = useCurrentApp();
  const { t, number, dateTime } = useI18n();
  usePageTitle(`${t('segments.title')} · ${app.name}`);
  const [tree, setTree] = useState<Group>(() => newGroup());
  const [name, setName] = useState('');
  /** The saved segment the builder holds, if one was opened: saving then changes it in place. */
  const [opened, setOpened] = useState<{ id: string; name: string } | null>(null);
  const list = useSegments(app.id);
  const create = useCreateSegment(app.id);
  const update = useUpdateSegment(app.id);
  const remove = useDeleteSegment(app.id);
  const mayWrite = roleAllows(app.role, 'editor');
  const compiled = compile(tree);
  // The write in flight or last done, whose outcome the form shows: each save resets the other.
  const write = update.isIdle ? create : update;
  const resetWrites = () => {
    if (create.isSuccess || create.isError) create.reset();
    if (update.isSuccess || update.isError) update.reset();
  };
  const onSave = (event: FormEvent) => {
    event.preventDefault();
    if ('problem' in compiled) return;
    const body = { name: name.trim(), segment: compiled.expression };
    if (opened) {
      create.reset();
      update.mutate(
        { segmentId: opened.id, ...body },
        { onSuccess: (data) => setOpened({ id: data.segment.id, name: data.segment.name }) },
      );
    } else create.mutate(body);
  };
  const saveAsNew = () => {
    if ('problem' in compiled) return;
    update.reset();
    create.mutate(
      { name: name.trim(), segment: compiled.expression },
      { onSuccess: (data) => setOpened({ id: data.segment.id, name: data.segment.name }) },
    );
  };
  const open = (segment: { id: string; name: string; segment: Record<string, unknown> }) => {
    create.reset();
    update.reset();
    setTree(treeOf(segment.segment as SegmentExpression));
    setName(segment.name);
    setOpened({ id: segment.id, name: segment.name });
    document.getElementById('builder-title')?.scrollIntoView({ block: 'start' });
  };
  const startNew = () => {
    create.reset();
    update.reset();
    setTree(newGroup());
    setName('');
    setOpened(null);
  };
  const busy = create.isPending || update.isPending;
  return (
    <>
      <section className="panel" aria-labelledby="builder-title">
        <h2 id="builder-title">{t('segments.builderTitle')}</h2>
        <p className="muted">{t('segments.builderLead')}</p>
        {opened && (
          <p className="hint segment-opened" role="status">
            {t(mayWrite ? 'segments.opened' : 'segments.openedReadOnly', { name: opened.name })}{' '}
            <button type="button" className="button button-small" onClick={startNew}>
              {t('segments.new')}
            </button>
          </p>
        )}
        <SegmentBuilder
          appId={app.id}
          value={tree}
          onChange={(next) => {
            resetWrites();
            setTree(next);
          }}
        />
        {mayWrite && (
          <form className="segment-save" onSubmit={onSave}>
            <Field
              id="segment-name"
              label={t('segments.name')}
              required
              maxLength={MAX_SEGMENT_NAME_LENGTH}
              value={name}
              onChange={(event) => {
                resetWrites();
                setName(event.target.value);
              }}
            />
            <button
              type="submit"
              className="button button-primary"
              disabled={busy || 'problem' in compiled || !name.trim()}
            >
              {busy ? t('common.saving') : t(opened ? 'segments.saveChanges' : 'segments.save')}
            </button>
            {opened && (
              <button
                type="button"
                className="button"
                disabled={busy || 'problem' in compiled || !name.trim()}
                onClick={saveAsNew}
              >
                {t('segments.saveAsNew')}
              </button>
            )}
          </form>
        )}
        <ErrorMessage error={write.error} />
        {write.isSuccess && (
          <p className="success" role="status">
            {t(write === update ? 'segments.updated' : 'segments.saved', { name: write.data.segment.name })}
          </p>
        )}
      </section>
      <section className="panel" aria-labelledby="saved-title">
        <h2 id="saved-title">{t('segments.savedTitle')}</h2>
        <Loaded
          query={list}
          lines={3}
          isEmpty={(data) => data.segments.length === 0}
          empty={
            <p className="empty" data-testid="segments-empty">
              {t('segments.empty')}
            </p>
          }
        >
          {(data) => (
            <DataTable
              label={t('segments.savedTitle')}
              columns={[
                t('segments.colName'),
                t('segments.colConditions'),
                { label: t('segments.colCount'), numeric: true },
                t('segments.colCreated'),
              ]}
              actions={t('segments.colActions')}
            >
              {data.segments.map((segment) => (
                <tr key={segment.id} data-testid="saved-segment">
                  <td>{segment.name}</td>
                  <td>
                    <code className="segment-summary">{summaryOf(segment.segment as SegmentExpression)}</code>
                  </td>
                  <td className="num">{number(segment.count)}</td>
                  <td>{dateTime(segment.createdAt)}</td>
                  <td className="actions">
                    <button
                      type="button"
                      className="button button-small"
                      aria-label={t('segments.openLabel', { name: segment.name })}
                      onClick={() => open(segment)}
                    >
                      {t('segments.open')}
                    </button>{' '}
                    {mayWrite && (
                      <>
                        <Link
                          className="button button-small"
                          to={`/apps/${app.id}/send?segment=${segment.id}`}
                          aria-label={t('segments.sendLabel', { name: segment.name })}
                        >
                          {t('segments.send')}
                        </Link>{' '}
                        <ConfirmButton
                          label={t('segments.delete')}
                          ariaLabel={t('segments.deleteLabel', { name: segment.name })}
                          title={t('segments.deleteTitle', { name: segment.name })}
                          confirmLabel={t('segments.deleteConfirm')}
                          onConfirm={() => remove(segment.id)}
                        >
                          <p>{t('segments.deleteBody')}</p>
                        </ConfirmButton>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </Loaded>
      </section>
    </>
  );
}
