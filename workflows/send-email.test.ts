import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@temporalio/client';
import { messageIdFor } from '../activities/mail/index.ts';
import { startApiServer } from '../api/server.ts';
import { startTestApi } from '../api/testing.ts';
import { loadRuntimeConfig } from '../config/env.ts';
import type { CapturedMail } from '../integrations/mail/captured-mail.ts';
import { verifyEmail } from '../integrations/mail/templates.ts';
import { extractLinks, waitForMail } from '../integrations/mail/testing.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { connectTemporal } from '../temporal/client.ts';
import { taskQueues } from '../temporal/task-queues.ts';
import { sendEmail } from './send-email.ts';

describe('sending an email: workflow → activity → SMTP → capture → dev outbox', () => {
  const config = loadRuntimeConfig();
  let temporal: Client;
  before(async () => {
    temporal = await connectTemporal(config.temporal);
  });
  after(() => temporal.connection.close());

  const id = `verify-email:${randomUUID()}`;
  const to = `send-email-${randomUUID()}@example.com`;
  const url = `https://tollgate.example/api/auth/verify-email?token=${randomUUID()}`;

  it('delivers the mail under the Message-ID its id names', async () => {
    const result = await temporal.workflow.execute(sendEmail, {
      workflowId: workflowIds.email(id),
      taskQueue: taskQueues.main,
      args: [{ id, to, ...verifyEmail({ url }) }],
    });
    const mail = await waitForMail({ to, subject: /^Verify your email address$/ });
    assert.equal(mail.messageId, messageIdFor(id, config.mail.from));
    assert.equal(result.messageId, mail.messageId);
    assert.deepEqual(extractLinks(mail), [url]);
  });

  it('lists the mail in the outbox of an API in development', async () => {
    const api = await startApiServer(
      { ...config, env: 'development' },
      { host: '127.0.0.1', port: 0 },
    );
    try {
      const response = await fetch(`${api.url}/api/dev/outbox`, {
        headers: { authorization: `Bearer ${config.opsToken}` },
      });
      assert.equal(response.status, 200);
      const { items } = (await response.json()) as { items: CapturedMail[] };
      assert.ok(items.some((mail) => mail.to.includes(to) && mail.text.includes(url)));
      const times = items.map((mail) => mail.receivedAt);
      assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
    } finally {
      await api.close();
    }
  });

  it('has no outbox outside development', async () => {
    const api = await startTestApi();
    try {
      assert.equal((await fetch(`${api.url}/api/dev/outbox`)).status, 404);
    } finally {
      await api.close();
    }
  });
});
