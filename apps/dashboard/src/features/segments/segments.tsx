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
import { useCreateSegment, useDeleteSegment, useSegments } from './use-segments.js';
import './segments.css';

/** The builder with a live count, a name to save it under, and the app's saved segments below. */
export function SegmentsPage() {
  const app = useCurrentApp();
  const { t, number, dateTime } = useI18n();
  usePageTitle(`${t('segments.title')} · ${app.name}`);
  const [tree, setTree] = useState<Group>(() => newGroup());
  const [name, setName] = useState('');
  const [opened, setOpened] = useState<string | null>(null);
  const list = useSegments(app.id);
  const create = useCreateSegment(app.id);
  const remove = useDeleteSegment(app.id);
  const mayWrite = roleAllows(app.role, 'editor');
  const compiled = compile(tree);
  const onSave = (event: FormEvent) => {
    event.preventDefault();
    if ('problem' in compiled) return;
    create.mutate({ name: name.trim(), segment: compiled.expression });
  };
  const open = (segment: { id: string; name: string; segment: Record<string, unknown> }) => {
    create.reset();
    setTree(treeOf(segment.segment as SegmentExpression));
    setName(segment.name);
    setOpened(segment.name);
    document.getElementById('builder-title')?.scrollIntoView({ block: 'start' });
  };
  return (
    <>
      <section className="panel" aria-labelledby="builder-title">
        <h2 id="builder-title">{t('segments.builderTitle')}</h2>
        <p className="muted">{t('segments.builderLead')}</p>
        {opened && (
          <p className="hint" role="status">
            {t('segments.opened', { name: opened })}
          </p>
        )}
        <SegmentBuilder
          appId={app.id}
          value={tree}
          onChange={(next) => {
            if (create.isSuccess || create.isError) create.reset();
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
                if (create.isSuccess || create.isError) create.reset();
                setName(event.target.value);
              }}
            />
            <button
              type="submit"
              className="button button-primary"
              disabled={create.isPending || 'problem' in compiled || !name.trim()}
            >
              {create.isPending ? t('common.saving') : t('segments.save')}
            </button>
          </form>
        )}
        <ErrorMessage error={create.error} />
        {create.isSuccess && (
          <p className="success" role="status">
            {t('segments.saved', { name: create.data.segment.name })}
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
            <>
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
              <p className="hint">{t('segments.noEditInPlace')}</p>
            </>
          )}
        </Loaded>
      </section>
    </>
  );
}
