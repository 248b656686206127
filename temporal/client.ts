import { Client, Connection } from '@temporalio/client';
import type { PayloadKey } from '../config/env.ts';
import { installedTracing } from '../core/trace-context.ts';
import { temporalDataConverter } from './payload-codec.ts';

export interface TemporalSettings {
  address: string;
  namespace: string;
  /** Every payload the client sends is encrypted, every one it reads decrypted, with these. */
  payloadKeys: PayloadKey[] | undefined;
}

/**
 * A Temporal client; close it with `client.connection.close()`. With tracing on, each call
 * carries the caller's span to the workflow (temporal/tracing.ts).
 */
export async function connectTemporal({
  address,
  namespace,
  payloadKeys,
}: TemporalSettings): Promise<Client> {
  const dataConverter = temporalDataConverter(payloadKeys);
  const connection = await Connection.connect({ address });
  const interceptors = installedTracing()
    ? (await import('./tracing.ts')).tracingClientInterceptors()
    : undefined;
  return new Client({ connection, namespace, dataConverter, interceptors });
}
