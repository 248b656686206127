import { EntityPage } from '../../components/EntityPage';
import { WorkflowPanel } from '../../components/WorkflowPanel';
import type { PageProps } from '../../router';
import { isWorkflowKind, kindLabels } from './api';

/** One entity's workflow on its own page: for kinds without an entity page (grants, invitations…). */
export default function WorkflowPage({ params }: PageProps) {
  const { kind = '', entityId = '' } = params;
  const back = { to: `/workflows?type=${kind}`, label: 'Workflows' };
  if (!isWorkflowKind(kind)) {
    return (
      <EntityPage title="Workflow" back={back}>
        <p role="note">There are no {kind} workflows.</p>
      </EntityPage>
    );
  }
  return (
    <EntityPage
      title={`${kindLabels[kind].replace(/s$/, '')} workflow`}
      subtitle={<code>{entityId}</code>}
      back={back}
    >
      <WorkflowPanel kind={kind} entityId={entityId} />
    </EntityPage>
  );
}
